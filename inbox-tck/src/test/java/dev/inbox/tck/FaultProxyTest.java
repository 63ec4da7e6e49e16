package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The proxy against an echo server that counts the bytes it received. */
@Timeout(20)
class FaultProxyTest {

    private ServerSocket echo;
    private final AtomicInteger received = new AtomicInteger();
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket socket = echo.accept();
                    Thread pump = new Thread(() -> {
                        try (socket) {
                            InputStream in = socket.getInputStream();
                            int b;
                            while ((b = in.read()) >= 0) {
                                received.incrementAndGet();
                                socket.getOutputStream().write(b);
                            }
                        } catch (IOException ignored) {
                            // the client went away
                        }
                    });
                    pump.setDaemon(true);
                    pump.start();
                } catch (IOException closed) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        proxy = FaultProxy.start("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(proxy.host(), proxy.port());
        socket.setSoTimeout(2_000);
        return socket;
    }

    private static int roundTrip(Socket socket, int value) throws IOException {
        socket.getOutputStream().write(value);
        return socket.getInputStream().read();
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, 7)).isEqualTo(7);
            assertThat(roundTrip(socket, 8)).isEqualTo(8);
        }
        assertThat(proxy.connectionsAccepted()).isEqualTo(1);
    }

    @Test
    void refuse_rejectsNewConnectionsAndCutsOpenOnes_acceptRestoresTheSamePort() throws IOException {
        Socket open = connect();
        assertThat(roundTrip(open, 1)).isEqualTo(1);
        int port = proxy.port();
        proxy.refuse();
        assertThat(open.getInputStream().read())
                .as("the open connection is cut")
                .isEqualTo(-1);
        assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
        proxy.accept();
        assertThat(proxy.port()).isEqualTo(port);
        try (Socket again = connect()) {
            assertThat(roundTrip(again, 2)).isEqualTo(2);
        }
        open.close();
    }

    @Test
    void stall_holdsBytesUntilResume() throws Exception {
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, 1)).isEqualTo(1);
            proxy.stall();
            socket.setSoTimeout(300);
            socket.getOutputStream().write(9);
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(received).as("the server saw nothing while stalled").hasValue(1);
            proxy.resume();
            socket.setSoTimeout(2_000);
            assertThat(socket.getInputStream().read())
                    .as("the held byte, echoed")
                    .isEqualTo(9);
        }
    }

    @Test
    void loseNextReply_deliversTheRequest_dropsTheReply_andCutsTheConnection() throws Exception {
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, 1)).isEqualTo(1);
            proxy.loseNextReply();
            socket.getOutputStream().write(5);
            assertThat(socket.getInputStream().read())
                    .as("the reply never arrives")
                    .isEqualTo(-1);
        }
        assertThat(received).as("the server received the request").hasValue(2);
        assertThat(proxy.repliesLost()).isEqualTo(1);
        try (Socket next = connect()) {
            assertThat(roundTrip(next, 3)).as("the fault was one-shot").isEqualTo(3);
        }
    }

    @Test
    void loseEveryNthReply_losesEveryNthRead_untilTurnedOff() throws Exception {
        proxy.loseEveryNthReply(3);
        int answered = 0;
        for (int i = 0; i < 9; i++) {
            try (Socket socket = connect()) {
                if (roundTrip(socket, i) == i) {
                    answered++;
                }
            }
        }
        assertThat(answered).isEqualTo(6);
        assertThat(proxy.repliesLost()).isEqualTo(3);
        proxy.loseEveryNthReply(0);
        try (Socket socket = connect()) {
            assertThat(roundTrip(socket, 1)).isEqualTo(1);
            assertThat(roundTrip(socket, 2)).isEqualTo(2);
            assertThat(roundTrip(socket, 3)).isEqualTo(3);
        }
        assertThatThrownBy(() -> proxy.loseEveryNthReply(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cutConnections_keepsAccepting() throws IOException {
        Socket open = connect();
        assertThat(roundTrip(open, 1)).isEqualTo(1);
        proxy.cutConnections();
        assertThat(open.getInputStream().read()).isEqualTo(-1);
        open.close();
        try (Socket again = connect()) {
            assertThat(roundTrip(again, 4)).isEqualTo(4);
        }
    }

    @Test
    void rejectsABadPort() {
        assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port");
    }
}
