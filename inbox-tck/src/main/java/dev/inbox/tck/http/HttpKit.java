package dev.inbox.tck.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The handler behind the integration under test, and its count of runs per path. A harness's server
 * calls {@link #respond(String, String)} for every request the integration lets through, and answers
 * with what it returns.
 *
 * <p>By default the handler creates something: {@code 201} with a JSON body unique to the run (its
 * run number and a random id), {@code Content-Type}, {@code Location}, a {@code Set-Cookie} and an
 * {@code X-Kit-Run} header that a replay must not carry. The query steers it: {@code sleep=<ms>}
 * holds the request that long first; {@code mode=fail-first} answers the path's first run with
 * {@code 500}, {@code mode=throw-first} throws {@link HandlerFailure} on it; {@code
 * mode=bad-request} answers {@code 400} with a body unique to the run; {@code mode=crash-first}
 * answers as by default, and asks a {@link TransactionalHttpHarness} to end the request's database
 * connection after the path's first run ({@link #crashesAfter}).
 */
public final class HttpKit {

    /** The request header that carries the key. */
    public static final String KEY_HEADER = "Idempotency-Key";

    /** The response header that marks a replay. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    /** The request header the integration must scope keys by: the kit's stand-in for a principal. */
    public static final String PRINCIPAL_HEADER = "X-Kit-User";

    /** The most body bytes the integration may read for the fingerprint; a longer body must be 413. */
    public static final int MAX_BODY_BYTES = 16 * 1024;

    /** The paths under this prefix reach the kit's handler through the integration. */
    public static final String PATH_PREFIX = "/kit/";

    /** The {@code mode} whose first run a transactional harness ends as a crash would: {@value}. */
    public static final String CRASH_FIRST = "crash-first";

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    /** What the handler answers. */
    public record Answer(int status, Map<String, String> headers, byte[] body) {
        /** An answer of {@code status} with {@code headers} (copied, in order) and {@code body} (not copied). */
        public Answer {
            headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        }

        /**
         * Answers with this: {@code status} gets the status, {@code header} each header (before the
         * body), {@code body} the body — a servlet's {@code setStatus}, {@code addHeader} and output
         * stream, say.
         */
        public void writeTo(IntConsumer status, BiConsumer<String, String> header, OutputStream body)
                throws IOException {
            status.accept(this.status);
            headers.forEach(header);
            body.write(this.body);
        }
    }

    /** What the handler throws on {@code mode=throw-first}: the harness lets it propagate. */
    public static final class HandlerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailure(String path) {
            super("the kit's handler failed on the first run of " + path);
        }
    }

    /**
     * Runs the handler for a request to {@code path} with raw query {@code query}.
     *
     * @throws IllegalArgumentException if {@code path} is not under {@value #PATH_PREFIX}
     * @throws HandlerFailure on the first run of a path with {@code mode=throw-first}
     */
    public Answer respond(String path, @Nullable String query) {
        if (path == null || !path.startsWith(PATH_PREFIX)) {
            throw new IllegalArgumentException("not a path of the kit (" + PATH_PREFIX + "…): " + path);
        }
        Map<String, String> parameters = parameters(query);
        int run = runs.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        String sleep = parameters.get("sleep");
        if (sleep != null) {
            try {
                Thread.sleep(Long.parseLong(sleep));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the kit's handler slept", e);
            }
        }
        String mode = parameters.getOrDefault("mode", "");
        String unique = "\"run\":" + run + ",\"id\":\"" + UUID.randomUUID() + "\"";
        if (run == 1 && mode.equals("throw-first")) {
            throw new HandlerFailure(path);
        }
        if (run == 1 && mode.equals("fail-first")) {
            return json(500, "{\"error\":\"failed\"," + unique + "}", Map.of());
        }
        if (mode.equals("bad-request")) {
            return json(400, "{\"error\":\"bad amount\"," + unique + "}", Map.of());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Location", path + "/things/" + run);
        headers.put("Set-Cookie", "kit-session=" + UUID.randomUUID());
        headers.put("X-Kit-Run", Integer.toString(run));
        return json(201, "{" + unique + ",\"note\":\"\u00fc\"}", headers);
    }

    /**
     * Whether the server must end the request's database connection now, after the handler's run for
     * {@code path} with raw query {@code query}: true after the path's first run with {@code
     * mode=crash-first}. A {@link TransactionalHttpHarness} asks after every run.
     */
    public boolean crashesAfter(String path, @Nullable String query) {
        return runs(path) == 1 && CRASH_FIRST.equals(parameters(query).get("mode"));
    }

    /** How often the handler ran for {@code path}. */
    public int runs(String path) {
        AtomicInteger count = runs.get(path);
        return count == null ? 0 : count.get();
    }

    private static Answer json(int status, String body, Map<String, String> extra) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json;charset=UTF-8");
        headers.putAll(extra);
        return new Answer(status, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> parameters(@Nullable String query) {
        Map<String, String> parameters = new HashMap<>();
        if (query != null) {
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                if (equals > 0) {
                    parameters.put(pair.substring(0, equals), pair.substring(equals + 1));
                }
            }
        }
        return parameters;
    }
}
