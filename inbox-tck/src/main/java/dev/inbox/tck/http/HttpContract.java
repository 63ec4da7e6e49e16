package dev.inbox.tck.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP kit: the rules of {@link HttpRule}, each a test whose display name starts with its id,
 * run over real HTTP against the server a subclass's {@link HttpHarness} starts. Each test uses
 * paths and keys of its own, so one server serves them all.
 *
 * <pre>{@code
 * class MyFilterHttpKitTest extends HttpContract {
 *     protected HttpHarness createHarness(HttpKit kit) throws Exception {
 *         return new MyServer(kit, myStore()); // POST /kit/** → the integration → kit.respond(…)
 *     }
 * }
 * }</pre>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class HttpContract extends KitServer<HttpHarness> {

    /** Starts a server that runs the integration under test in front of {@code kit}, as {@link HttpHarness} says. */
    protected abstract HttpHarness createHarness(HttpKit kit) throws Exception;

    @Override
    final HttpHarness startHarness(HttpKit kit) throws Exception {
        return createHarness(kit);
    }

    @Test
    @DisplayName("W1 a repeat gets the first response: status, body, allowed headers, marked replayed; ran once")
    void w1_replay() throws Exception {
        String path = path();
        String key = key();
        HttpResponse<byte[]> first = post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}");
        HttpResponse<byte[]> repeat = post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}");

        assertThat(first.statusCode()).as("the first answer").isEqualTo(201);
        assertThat(first.headers().firstValue(HttpKit.REPLAYED_HEADER))
                .as("the first answer")
                .isEmpty();
        assertThat(repeat.statusCode()).as("the replayed status").isEqualTo(201);
        assertThat(repeat.body()).as("the replayed body, byte for byte").isEqualTo(first.body());
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
        assertThat(first.headers().firstValue("Location"))
                .as("the first Location")
                .isPresent();
        assertThat(repeat.headers().firstValue("Location"))
                .as("the replayed Location")
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(repeat.headers().firstValue("Content-Type"))
                .as("the replayed Content-Type")
                .isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(first.headers().firstValue("Set-Cookie"))
                .as("the first answer's cookie")
                .isPresent();
        assertThat(repeat.headers().firstValue("Set-Cookie"))
                .as("a cookie is never replayed")
                .isEmpty();
        assertThat(repeat.headers().firstValue("X-Kit-Run"))
                .as("a header outside the allow-list is not replayed")
                .isEmpty();
        assertThat(kit.runs(path)).as("runs of the handler").isEqualTo(1);
    }

    @Test
    @DisplayName("W2 concurrent requests with one key: the handler runs once, the others get 409 or the replay")
    void w2_concurrent() throws Exception {
        String path = path();
        String key = key();
        int clients = 8;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return post(path + "?sleep=300", key, "alice", "{\"amount\":5}");
                }));
            }
            go.countDown();
            byte[] created = null;
            for (Future<HttpResponse<byte[]>> answer : answers) {
                HttpResponse<byte[]> response = answer.get(30, TimeUnit.SECONDS);
                if (response.statusCode() == 409) {
                    assertThat(response.headers().firstValue("Retry-After"))
                            .as("a 409 says when to retry")
                            .isPresent();
                } else {
                    assertThat(response.statusCode())
                            .as("an answer other than 409")
                            .isEqualTo(201);
                    if (created == null) {
                        created = response.body();
                    }
                    assertThat(response.body())
                            .as("every 201 is the one run's, byte for byte")
                            .isEqualTo(created);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(kit.runs(path)).as("runs of the handler").isEqualTo(1);
    }

    @Test
    @DisplayName("W3 the same JSON serialized another way is the same request; another body or query is 422")
    void w3_fingerprint() throws Exception {
        String path = path();
        String key = key();
        HttpResponse<byte[]> first = post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}");
        assertThat(first.statusCode()).isEqualTo(201);

        HttpResponse<byte[]> reserialized = post(path, key, "alice", "{ \"currency\": \"EUR\", \"amount\": 1.0e2 }");
        assertThat(reserialized.statusCode())
                .as("the same JSON, serialized another way")
                .isEqualTo(201);
        assertThat(reserialized.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
        assertThat(reserialized.body()).isEqualTo(first.body());

        assertThat(post(path, key, "alice", "{\"amount\":101,\"currency\":\"EUR\"}")
                        .statusCode())
                .as("another body under the key")
                .isEqualTo(422);
        assertThat(post(path + "?note=other", key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}")
                        .statusCode())
                .as("another query under the key")
                .isEqualTo(422);
        assertThat(kit.runs(path)).as("runs of the handler").isEqualTo(1);
    }

    @Test
    @DisplayName("W4 a 2xx or 4xx the handler answered is kept; a 5xx or a thrown handler releases the key")
    void w4_whatIsKept() throws Exception {
        String failing = path();
        String key = key();
        assertThat(post(failing + "?mode=fail-first", key, "alice", "{}").statusCode())
                .as("the handler's 500")
                .isEqualTo(500);
        HttpResponse<byte[]> retry = post(failing + "?mode=fail-first", key, "alice", "{}");
        assertThat(retry.statusCode()).as("the retry after a 500").isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpKit.REPLAYED_HEADER)).isEmpty();
        assertThat(kit.runs(failing)).as("runs after a 500 and a retry").isEqualTo(2);

        String throwing = path();
        String other = key();
        assertThat(post(throwing + "?mode=throw-first", other, "alice", "{}").statusCode())
                .as("a handler that throws")
                .isGreaterThanOrEqualTo(500);
        assertThat(post(throwing + "?mode=throw-first", other, "alice", "{}").statusCode())
                .as("the retry after a handler threw")
                .isEqualTo(201);
        assertThat(kit.runs(throwing)).as("runs after a throw and a retry").isEqualTo(2);

        String refusing = path();
        String third = key();
        HttpResponse<byte[]> bad = post(refusing + "?mode=bad-request", third, "alice", "{}");
        HttpResponse<byte[]> again = post(refusing + "?mode=bad-request", third, "alice", "{}");
        assertThat(bad.statusCode()).as("the handler's 400").isEqualTo(400);
        assertThat(again.statusCode()).as("the 400 replayed").isEqualTo(400);
        assertThat(again.body()).as("the 400's body, byte for byte").isEqualTo(bad.body());
        assertThat(kit.runs(refusing)).as("runs after a 400 and a repeat").isEqualTo(1);
    }

    @Test
    @DisplayName("W5 two principals' identical keys never meet; a request the scope cannot place is 400")
    void w5_scopes() throws Exception {
        String path = path();
        String key = "order-1";
        HttpResponse<byte[]> alice = post(path, key, "alice", "{\"amount\":1}");
        HttpResponse<byte[]> bob = post(path, key, "bob", "{\"amount\":1}");
        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue(HttpKit.REPLAYED_HEADER))
                .as("bob never gets alice's answer")
                .isEmpty();
        assertThat(bob.body()).isNotEqualTo(alice.body());
        assertThat(kit.runs(path)).as("runs for two principals").isEqualTo(2);

        HttpResponse<byte[]> again = post(path, key, "alice", "{\"amount\":1}");
        assertThat(again.body()).as("alice's repeat gets alice's answer").isEqualTo(alice.body());

        HttpResponse<byte[]> nobody = post(path, key, null, "{\"amount\":1}");
        assertThat(nobody.statusCode()).as("a request without a principal").isEqualTo(400);
        assertThat(kit.runs(path))
                .as("runs after alice's repeat and an unscoped request")
                .isEqualTo(2);
    }

    @Test
    @DisplayName("W6 no key, an empty key, one over 255 characters, two keys: 400 before the handler")
    void w6_badKeys() throws Exception {
        String path = path();
        assertThat(post(path, null, "alice", "{}").statusCode()).as("no key").isEqualTo(400);
        assertThat(post(path, "", "alice", "{}").statusCode())
                .as("an empty key")
                .isEqualTo(400);
        assertThat(post(path, "k".repeat(256), "alice", "{}").statusCode())
                .as("256 characters")
                .isEqualTo(400);
        HttpResponse<byte[]> two = client.send(client.request(path)
                .header(HttpKit.PRINCIPAL_HEADER, "alice")
                .header(HttpKit.KEY_HEADER, "a")
                .header(HttpKit.KEY_HEADER, "b")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
        assertThat(two.statusCode()).as("two key headers").isEqualTo(400);
        assertThat(kit.runs(path)).as("runs of the handler").isZero();

        String longest = path();
        assertThat(post(longest, "k".repeat(255), "alice", "{}").statusCode())
                .as("255 characters")
                .isEqualTo(201);
    }

    @Test
    @DisplayName("W7 a body over the read limit is 413 before the handler; one at the limit is guarded")
    void w7_bodyLimit() throws Exception {
        String path = path();
        String over = "{\"pad\":\"" + "p".repeat(HttpKit.MAX_BODY_BYTES - 9) + "\"}";
        assertThat(post(path, key(), "alice", over).statusCode())
                .as("a body of %d bytes", HttpKit.MAX_BODY_BYTES + 1)
                .isEqualTo(413);
        assertThat(kit.runs(path)).as("runs of the handler").isZero();

        String at = "{\"pad\":\"" + "p".repeat(HttpKit.MAX_BODY_BYTES - 10) + "\"}";
        String key = key();
        HttpResponse<byte[]> first = post(path, key, "alice", at);
        assertThat(first.statusCode())
                .as("a body of %d bytes", HttpKit.MAX_BODY_BYTES)
                .isEqualTo(201);
        assertThat(post(path, key, "alice", at).headers().firstValue(HttpKit.REPLAYED_HEADER))
                .as("its repeat")
                .hasValue("true");
        assertThat(kit.runs(path)).as("runs of the handler").isEqualTo(1);
    }

    private static String path() {
        return KitClient.path();
    }

    private static String key() {
        return KitClient.key();
    }

    private HttpResponse<byte[]> post(
            String pathAndQuery, @Nullable String key, @Nullable String principal, String json) throws Exception {
        return client.post(pathAndQuery, key, principal, json);
    }
}
