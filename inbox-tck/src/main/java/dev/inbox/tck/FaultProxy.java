package dev.inbox.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy between a store's client and its server that a test controls, to make the
 * network fail the way it does in production: the server becomes unreachable ({@link #refuse()}),
 * connections drop ({@link #cutConnections()}), the server stops answering for a while ({@link
 * #stall()} / {@link #resume()}), or a reply is lost after the server executed the request ({@link
 * #loseNextReply()}) — the ambiguous failure that rule C5 exists for.
 *
 * <p>Point the client at {@link #host()}:{@link #port()} instead of the server. Each accepted
 * connection opens one to the server and copies bytes both ways on two daemon threads. The port
 * stays the same for the proxy's life, across {@link #refuse()} and {@link #accept()}.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start("127.0.0.1", 5432)) {
 *     DataSource ds = pool("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
 *     proxy.loseNextReply();
 *     ...
 * }
 * }</pre>
 */
public final class FaultProxy implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final InetSocketAddress server;
    private final int port;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicBoolean loseReply = new AtomicBoolean();
    private final AtomicLong repliesLost = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong replies = new AtomicLong();
    private final AtomicLong repliesForwarded = new AtomicLong();
    private volatile int loseEvery;
    private volatile ServerSocket listener;
    private volatile Thread acceptor;
    private boolean stalled; // guarded by gate
    private volatile boolean closed;

    private FaultProxy(InetSocketAddress server, ServerSocket listener) {
        this.server = server;
        this.listener = listener;
        this.port = listener.getLocalPort();
        this.acceptor = startAcceptor(listener);
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code host:port}.
     *
     * @throws IllegalArgumentException when the port is out of range
     */
    public static FaultProxy start(String host, int port) throws IOException {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 1..65535, not " + port);
        }
        return new FaultProxy(new InetSocketAddress(host, port), bind(0));
    }

    /** The proxy's address, always loopback. */
    public String host() {
        return InetAddress.getLoopbackAddress().getHostAddress();
    }

    /** The proxy's port, the same for its whole life. */
    public int port() {
        return port;
    }

    /** Connections accepted so far. */
    public long connectionsAccepted() {
        return connections.get();
    }

    /** Replies discarded by {@link #loseNextReply()} so far. */
    public long repliesLost() {
        return repliesLost.get();
    }

    /**
     * How many replies (reads from the server, as they came) the proxy has passed to clients: a
     * measure of traffic, for faults scheduled by it rather than by the clock.
     */
    public long repliesForwarded() {
        return repliesForwarded.get();
    }

    /**
     * Makes the server unreachable: stops listening, so new connections are refused, and cuts the
     * open ones.
     */
    public void refuse() throws IOException {
        ServerSocket current = listener;
        listener = null;
        if (current != null) {
            current.close();
            // The JDK releases a listening socket only when the thread blocked in accept() has
            // left it; until then the kernel would still complete new connections.
            try {
                acceptor.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        cutConnections();
    }

    /** Listens again on the same port after {@link #refuse()}; does nothing when listening. */
    public synchronized void accept() throws IOException {
        if (listener == null && !closed) {
            ServerSocket socket = bind(port);
            listener = socket;
            acceptor = startAcceptor(socket);
        }
    }

    /** Closes every open connection, on both sides; new connections are still accepted. */
    public void cutConnections() {
        for (Link link : links) {
            link.close();
        }
    }

    /**
     * Stops all bytes in both directions, as a server that is paused would: requests and replies
     * are held, connections stay open. {@link #resume()} delivers what was held.
     */
    public void stall() {
        synchronized (gate) {
            stalled = true;
        }
    }

    /** Lets bytes flow again after {@link #stall()}, held bytes first. */
    public void resume() {
        synchronized (gate) {
            stalled = false;
            gate.notifyAll();
        }
    }

    /**
     * Arms a one-shot fault: the next bytes any server sends are discarded and their connection is
     * cut on both sides. The server has then executed the request those bytes answer; the client
     * sees a broken connection and cannot know whether its request was applied.
     */
    public void loseNextReply() {
        loseReply.set(true);
    }

    /**
     * Loses every {@code n}th reply from now on, the way {@link #loseNextReply()} loses one (0
     * stops it): a fault rate tied to the traffic, so a client that reconnects slowly is not
     * starved of every reply. A "reply" is one read from the server, which for request/response
     * protocols on loopback is one reply or a pipeline of them.
     *
     * @throws IllegalArgumentException when {@code n} is negative
     */
    public void loseEveryNthReply(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be 0 (off) or positive, not " + n);
        }
        loseEvery = n;
    }

    /** Stops listening and closes every connection. */
    @Override
    public void close() {
        closed = true;
        resume();
        try {
            refuse();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return socket;
    }

    private Thread startAcceptor(ServerSocket socket) {
        return daemon("fault-proxy-accept-" + port, () -> {
            while (!socket.isClosed()) {
                Socket client;
                try {
                    client = socket.accept();
                } catch (IOException closedListener) {
                    return;
                }
                connections.incrementAndGet();
                Socket upstream = new Socket();
                try {
                    upstream.connect(server, CONNECT_TIMEOUT_MS);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                } catch (IOException unreachable) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                Link link = new Link(client, upstream);
                links.add(link);
                if (listener != socket) { // refused while this one was being connected
                    link.close();
                    continue;
                }
                daemon("fault-proxy-up-" + port, () -> link.pump(client, upstream, false));
                daemon("fault-proxy-down-" + port, () -> link.pump(upstream, client, true));
            }
        });
    }

    private boolean dueForLoss() {
        int every = loseEvery;
        return every > 0 && replies.incrementAndGet() % every == 0;
    }

    private void awaitFlowing() throws InterruptedException {
        synchronized (gate) {
            while (stalled) {
                gate.wait();
            }
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** One client connection and its server connection. */
    private final class Link {
        private final Socket client;
        private final Socket upstream;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void pump(Socket from, Socket to, boolean reply) {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                while (true) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    awaitFlowing();
                    if (reply && (loseReply.compareAndSet(true, false) || dueForLoss())) {
                        repliesLost.incrementAndGet();
                        break; // the bytes are dropped with the connection
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (reply) {
                        repliesForwarded.incrementAndGet();
                    }
                }
            } catch (SocketException | InterruptedException cut) {
                // the other pump or the test closed the link
            } catch (IOException e) {
                // a broken connection: close both sides, as a network failure would
            } finally {
                close();
            }
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }
}
