package dev.inbox.tck;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.keys.JsonCanonicalizer;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The simplest correct {@code Idempotency-Key} integration, on the JDK's own HTTP server over an
 * inbox: the HTTP kit must pass it, and each {@link Breakage} must fail the rule it breaks. Keys are
 * plain strings here (no Structured Field syntax): the kit sends no other kind.
 */
final class ReferenceHttpHarness implements HttpHarness {

    /** One thing a broken integration gets wrong. */
    enum Breakage {
        NONE,
        /** Replays without the Location header (W1). */
        DROPS_LOCATION,
        /** Looks the key up, runs the handler and records it after: no claim held while it runs (W2). */
        CHECK_THEN_ACT,
        /** Fingerprints the body's raw bytes, so re-serialized JSON is another request (W3). */
        RAW_BODY_FINGERPRINT,
        /** Keeps a 5xx for replays (W4). */
        KEEPS_SERVER_ERRORS,
        /** Keys are not scoped by the principal (W5). */
        UNSCOPED,
        /** Accepts a key of any length (W6). */
        NO_KEY_LIMIT,
        /** Reads and passes on a body of any length (W7). */
        NO_BODY_LIMIT
    }

    private static final Set<String> REPLAYED = Set.of("Content-Type", "Location");

    private final HttpKit kit;
    private final Inbox inbox;
    private final Breakage breakage;
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(16);

    ReferenceHttpHarness(HttpKit kit, InboxStore store, Breakage breakage) throws IOException {
        this.kit = kit;
        this.breakage = breakage;
        this.inbox =
                Inbox.builder(store).consumer("http-kit-" + UUID.randomUUID()).build();
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(HttpKit.PATH_PREFIX, exchange -> {
            try (exchange) {
                handle(exchange);
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    @Override
    public URI base() {
        return URI.create("http://" + server.getAddress().getHostString() + ":"
                + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        List<String> keys = exchange.getRequestHeaders().get(HttpKit.KEY_HEADER);
        if (keys == null || keys.size() != 1 || keys.get(0).isEmpty()) {
            send(exchange, problem(400));
            return;
        }
        String key = keys.get(0);
        if (key.length() > 255 && breakage != Breakage.NO_KEY_LIMIT) {
            send(exchange, problem(400));
            return;
        }
        byte[] body = read(exchange.getRequestBody());
        if (body.length > HttpKit.MAX_BODY_BYTES && breakage != Breakage.NO_BODY_LIMIT) {
            send(exchange, problem(413));
            return;
        }
        String principal = exchange.getRequestHeaders().getFirst(HttpKit.PRINCIPAL_HEADER);
        if (principal == null) {
            send(exchange, problem(400));
            return;
        }
        String scope = breakage == Breakage.UNSCOPED ? "" : principal;
        String id = "http:" + scope.length() + ":" + scope + "|" + key;
        URI uri = exchange.getRequestURI();
        Claim claim = inbox.claims().claim(id, fingerprint(uri, body));
        switch (claim.status()) {
            case BUSY -> {
                if (breakage == Breakage.CHECK_THEN_ACT) {
                    send(exchange, run(uri)); // not done yet, so it runs: nothing holds the key
                } else {
                    send(exchange, withRetryAfter(problem(409)));
                }
            }
            case DUPLICATE -> {
                if (claim.result().fingerprint() == FingerprintCheck.MISMATCH) {
                    send(exchange, problem(422));
                } else {
                    byte[] stored = claim.result().storedResult();
                    send(exchange, stored == null ? problem(500) : replay(stored));
                }
            }
            default -> {
                if (breakage == Breakage.CHECK_THEN_ACT) {
                    claim.release(); // looked up, not held
                    HttpKit.Answer answer = run(uri);
                    Claim record = inbox.claims().claim(id, fingerprint(uri, body));
                    if (record.isAcquired()) {
                        record.complete(encode(answer));
                    }
                    send(exchange, answer);
                    return;
                }
                HttpKit.Answer answer;
                try {
                    answer = run(uri);
                } catch (HttpKit.HandlerFailure failure) {
                    answer = problem(500);
                }
                if (answer.status() >= 500 && breakage != Breakage.KEEPS_SERVER_ERRORS) {
                    claim.release();
                } else {
                    claim.complete(encode(answer));
                }
                send(exchange, answer);
            }
        }
    }

    private HttpKit.Answer run(URI uri) {
        return kit.respond(uri.getPath(), uri.getRawQuery());
    }

    private String fingerprint(URI uri, byte[] body) {
        String content = new String(body, StandardCharsets.UTF_8);
        if (breakage != Breakage.RAW_BODY_FINGERPRINT) {
            content = JsonCanonicalizer.canonicalize(content);
        }
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {uri.getPath(), String.valueOf(uri.getRawQuery()), content}) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                sha256.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                sha256.update(bytes);
            }
            return HexFormat.of().formatHex(sha256.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] encode(HttpKit.Answer answer) {
        return encode(answer, breakage == Breakage.DROPS_LOCATION);
    }

    /** The status, the replayed headers (without Location when {@code dropLocation}) and the body. */
    static byte[] encode(HttpKit.Answer answer, boolean dropLocation) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(answer.status());
            Map<String, String> kept = new LinkedHashMap<>();
            answer.headers().forEach((name, value) -> {
                boolean dropped = name.equals("Location") && dropLocation;
                if (REPLAYED.contains(name) && !dropped) {
                    kept.put(name, value);
                }
            });
            out.writeInt(kept.size());
            for (Map.Entry<String, String> header : kept.entrySet()) {
                out.writeUTF(header.getKey());
                out.writeUTF(header.getValue());
            }
            out.writeInt(answer.body().length);
            out.write(answer.body());
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static HttpKit.Answer replay(byte[] stored) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored));
            int status = in.readInt();
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                headers.put(in.readUTF(), in.readUTF());
            }
            headers.put(HttpKit.REPLAYED_HEADER, "true");
            byte[] body = in.readNBytes(in.readInt());
            return new HttpKit.Answer(status, headers, body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static HttpKit.Answer problem(int status) {
        return new HttpKit.Answer(
                status,
                Map.of("Content-Type", "application/problem+json"),
                ("{\"status\":" + status + "}").getBytes(StandardCharsets.UTF_8));
    }

    static HttpKit.Answer withRetryAfter(HttpKit.Answer answer) {
        Map<String, String> headers = new LinkedHashMap<>(answer.headers());
        headers.put("Retry-After", "1");
        return new HttpKit.Answer(answer.status(), headers, answer.body());
    }

    private static byte[] read(InputStream body) throws IOException {
        return body.readNBytes(HttpKit.MAX_BODY_BYTES + 1);
    }

    static void send(HttpExchange exchange, HttpKit.Answer answer) throws IOException {
        answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        exchange.sendResponseHeaders(answer.status(), answer.body().length == 0 ? -1 : answer.body().length);
        exchange.getResponseBody().write(answer.body());
    }
}
