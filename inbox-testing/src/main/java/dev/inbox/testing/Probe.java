package dev.inbox.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;

/** Tells whether a server answers at an endpoint, in the server's own protocol. */
@FunctionalInterface
interface Probe {

    int TIMEOUT_MS = 3_000;

    /** Returns when the server at {@code endpoint} answers; throws, with the reason, when it does not. */
    void check(String endpoint) throws Exception;

    /** Opens and closes one JDBC connection (the driver must be on the class path). */
    static void jdbc(String url) throws Exception {
        DriverManager.setLoginTimeout(TIMEOUT_MS / 1000);
        DriverManager.getConnection(url).close();
    }

    /**
     * Sends the AMQP 0-9-1 protocol header and expects the broker's first frame (a method frame:
     * {@code Connection.Start}).
     */
    static void amqp(String uri) throws Exception {
        URI parsed = URI.create(uri);
        int port = parsed.getPort() == -1 ? 5672 : parsed.getPort();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(parsed.getHost(), port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(new byte[] {'A', 'M', 'Q', 'P', 0, 0, 9, 1});
            out.flush();
            int frameType = socket.getInputStream().read();
            if (frameType != 1) {
                throw new IllegalStateException("not an AMQP 0-9-1 broker (first byte " + frameType + ")");
            }
        }
    }

    /** Sends {@code PING} (after {@code AUTH} when the URI has a password) and expects {@code +PONG}. */
    static void redis(String uri) throws Exception {
        URI parsed = URI.create(uri);
        int port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(parsed.getHost(), port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String userInfo = parsed.getUserInfo();
            if (userInfo != null && userInfo.contains(":")) {
                String password = userInfo.substring(userInfo.indexOf(':') + 1);
                out.write(("AUTH " + password + "\r\n").getBytes(StandardCharsets.UTF_8));
                in.readLine();
            }
            out.write("PING\r\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            String reply = in.readLine();
            if (!"+PONG".equals(reply)) {
                throw new IllegalStateException("PING answered " + reply);
            }
        }
    }
}
