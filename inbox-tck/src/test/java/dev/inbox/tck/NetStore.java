package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordState;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A store that talks to a server over TCP, for the self-tests of the failure and fault rules
 * (E2–E5): {@link Server} serves a {@link ReferenceStore} one text line per request, and this
 * client keeps one connection, reconnects after a failure, times out after {@code timeout}, and
 * turns every I/O failure into a retryable {@link InboxStoreException}. Broken variants override
 * one of its hooks.
 */
class NetStore implements InboxStore {

    private final String host;
    private final int port;
    private final Duration timeout;
    private @Nullable Socket socket;
    private @Nullable BufferedReader in;
    private volatile boolean closed;

    NetStore(String host, int port, Duration timeout) {
        this.host = host;
        this.port = port;
        this.timeout = timeout;
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        InboxArguments.requireNonNull(request, "request");
        return decode(call(
                "CLAIM",
                request.key().consumer(),
                request.key().id(),
                request.owner().value(),
                Long.toString(request.lease().toMillis()),
                request.fingerprint() == null ? "-" : request.fingerprint()));
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        return Boolean.parseBoolean(
                call("COMPLETE", key.consumer(), key.id(), owner.value(), Long.toString(retention.toMillis())));
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        return Boolean.parseBoolean(call("RELEASE", key.consumer(), key.id(), owner.value()));
    }

    @Override
    public long purge() {
        return Long.parseLong(call("PURGE"));
    }

    /** The admin operations, over the same connection: each view travels as one token. */
    @Override
    public InboxAdmin admin() {
        return new InboxAdmin() {
            @Override
            public Optional<RecordView> inspect(InboxKey key) {
                InboxArguments.requireNonNull(key, "key");
                List<RecordView> views = decodeViews(call("INSPECT", key.consumer(), key.id()));
                return views.stream().findFirst();
            }

            @Override
            public List<RecordView> stuck(StuckQuery q) {
                InboxArguments.requireNonNull(q, "query");
                return decodeViews(call(
                        "STUCK",
                        q.consumer(),
                        Long.toString(q.overdue().toMillis()),
                        q.after() == null ? "" : q.after(),
                        Integer.toString(q.limit())));
            }

            @Override
            public RecordCounts count(String consumer) {
                InboxKey.validate(consumer, "consumer");
                long[] n = Arrays.stream(call("COUNT", consumer).split(" "))
                        .mapToLong(Long::parseLong)
                        .toArray();
                return new RecordCounts(n[0], n[1], n[2], n[3], n[4]);
            }

            @Override
            public boolean releaseLease(InboxKey key) {
                InboxArguments.requireNonNull(key, "key");
                return Boolean.parseBoolean(call("RELEASE_LEASE", key.consumer(), key.id()));
            }

            @Override
            public boolean forget(InboxKey key) {
                InboxArguments.requireNonNull(key, "key");
                return Boolean.parseBoolean(call("FORGET", key.consumer(), key.id()));
            }
        };
    }

    /** Views as one line: each view a token of comma-separated, URL-encoded fields; "-" for none. */
    static String encodeViews(List<RecordView> views) {
        if (views.isEmpty()) {
            return "-";
        }
        StringBuilder line = new StringBuilder();
        for (RecordView v : views) {
            line.append(line.length() == 0 ? "" : " ");
            line.append(String.join(
                    ",",
                    Stream.of(
                                    v.key().consumer(),
                                    v.key().id(),
                                    v.state().name(),
                                    String.valueOf(v.owner()),
                                    Long.toString(v.expiresAt().toEpochMilli()),
                                    Long.toString(v.purgeAfter().toEpochMilli()),
                                    String.valueOf(v.fingerprint()),
                                    String.valueOf(v.resultBytes()))
                            .map(s -> URLEncoder.encode(s, StandardCharsets.UTF_8))
                            .toList()));
        }
        return line.toString();
    }

    static List<RecordView> decodeViews(String line) {
        List<RecordView> views = new ArrayList<>();
        if (line.equals("-")) {
            return views;
        }
        for (String token : line.split(" ")) {
            String[] f = Arrays.stream(token.split(",", -1))
                    .map(s -> URLDecoder.decode(s, StandardCharsets.UTF_8))
                    .toArray(String[]::new);
            views.add(new RecordView(
                    InboxKey.of(f[0], f[1]),
                    RecordState.valueOf(f[2]),
                    f[3].equals("null") ? null : f[3],
                    Instant.ofEpochMilli(Long.parseLong(f[4])),
                    Instant.ofEpochMilli(Long.parseLong(f[5])),
                    f[6].equals("null") ? null : f[6],
                    f[7].equals("null") ? null : Integer.valueOf(f[7])));
        }
        return views;
    }

    @Override
    public synchronized void close() {
        closed = true;
        disconnect();
    }

    /** Sends one request and reads its reply; any I/O failure drops the connection and throws. */
    synchronized String call(String... words) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        try {
            Socket s = connection();
            StringBuilder line = new StringBuilder();
            for (String word : words) {
                line.append(line.length() == 0 ? "" : " ").append(URLEncoder.encode(word, StandardCharsets.UTF_8));
            }
            OutputStream out = s.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("the server closed the connection");
            }
            return reply;
        } catch (IOException e) {
            return failed(words[0], e);
        }
    }

    /** What a failed request comes to: the connection is dropped and the failure reported. */
    String failed(String operation, IOException e) {
        disconnect();
        throw new InboxStoreException(operation + " failed: " + e, e, true);
    }

    /** The open connection, or a new one. */
    Socket connection() throws IOException {
        if (socket == null) {
            Socket s = new Socket();
            s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            s.setSoTimeout(readTimeoutMillis());
            socket = s;
            in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        }
        return socket;
    }

    /** How long a reply may take; 0 waits for ever. */
    int readTimeoutMillis() {
        return (int) timeout.toMillis();
    }

    void disconnect() {
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
        socket = null;
        in = null;
    }

    static ClaimResult decode(String reply) {
        String[] parts = reply.split(" ");
        return switch (parts[0]) {
            case "ACQUIRED" -> ClaimResult.acquired();
            case "TAKEN_OVER" -> ClaimResult.takenOver();
            case "BUSY" -> ClaimResult.busy();
            case "DUPLICATE" ->
                ClaimResult.duplicate(Boolean.parseBoolean(parts[1]), FingerprintCheck.valueOf(parts[2]));
            default -> throw new InboxStoreException("unexpected reply: " + reply, null, false);
        };
    }

    /** Serves a {@link ReferenceStore} on a loopback port, one thread per connection. */
    static final class Server implements AutoCloseable {
        private final ServerSocket listener;
        private final ReferenceStore store = new ReferenceStore(Duration.ofMinutes(10));

        Server() throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "net-store-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", listener.getLocalPort());
        }

        private void accept() {
            while (!listener.isClosed()) {
                try {
                    Socket client = listener.accept();
                    Thread serve = new Thread(() -> serve(client), "net-store-connection");
                    serve.setDaemon(true);
                    serve.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket client) {
            try (client;
                    BufferedReader lines = new BufferedReader(
                            new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
                OutputStream out = client.getOutputStream();
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    out.write((answer(line.split(" ")) + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            } catch (IOException | RuntimeException gone) {
                // the client went away
            }
        }

        private String answer(String[] words) {
            String[] w = new String[words.length];
            for (int i = 0; i < words.length; i++) {
                w[i] = URLDecoder.decode(words[i], StandardCharsets.UTF_8);
            }
            return switch (w[0]) {
                case "CLAIM" -> {
                    ClaimResult r = store.claim(ClaimRequest.of(
                                    InboxKey.of(w[1], w[2]),
                                    OwnerToken.of(w[3]),
                                    Duration.ofMillis(Long.parseLong(w[4])))
                            .withFingerprint(w[5].equals("-") ? null : w[5]));
                    yield switch (r.status()) {
                        case ACQUIRED -> r.isTakeover() ? "TAKEN_OVER" : "ACQUIRED";
                        case BUSY -> "BUSY";
                        case DUPLICATE -> "DUPLICATE " + r.isLate() + " " + r.fingerprint();
                    };
                }
                case "COMPLETE" ->
                    Boolean.toString(store.complete(
                            InboxKey.of(w[1], w[2]), OwnerToken.of(w[3]), Duration.ofMillis(Long.parseLong(w[4]))));
                case "RELEASE" -> Boolean.toString(store.release(InboxKey.of(w[1], w[2]), OwnerToken.of(w[3])));
                case "PURGE" -> Long.toString(store.purge());
                case "INSPECT" ->
                    encodeViews(store.admin().inspect(InboxKey.of(w[1], w[2])).stream()
                            .toList());
                case "STUCK" ->
                    encodeViews(store.admin()
                            .stuck(new StuckQuery(
                                    w[1],
                                    Duration.ofMillis(Long.parseLong(w[2])),
                                    w[3].isEmpty() ? null : w[3],
                                    Integer.parseInt(w[4]))));
                case "COUNT" -> {
                    RecordCounts c = store.admin().count(w[1]);
                    yield c.inProgress() + " " + c.leaseEnded() + " " + c.completed() + " " + c.retentionEnded() + " "
                            + c.expired();
                }
                case "RELEASE_LEASE" -> Boolean.toString(store.admin().releaseLease(InboxKey.of(w[1], w[2])));
                case "FORGET" -> Boolean.toString(store.admin().forget(InboxKey.of(w[1], w[2])));
                default -> "ERROR";
            };
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
