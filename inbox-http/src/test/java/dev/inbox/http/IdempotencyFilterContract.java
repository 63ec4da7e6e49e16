package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.spi.InboxStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link IdempotencyFilter} in a real Tomcat, over real HTTP, on the store a subclass supplies:
 * what a client that retries sees, and how often the handler runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IdempotencyFilterContract {

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final PaymentsServlet payments = new PaymentsServlet();
    private InboxStore store;
    private TomcatServer server;

    /** A store on its server, its schema ready. */
    protected abstract InboxStore createStore() throws Exception;

    /** Closes the store and what it runs on. */
    protected void close(InboxStore store) throws Exception {
        store.close();
    }

    @BeforeAll
    void start() throws Exception {
        store = createStore();
        Inbox inbox = Inbox.builder(store)
                .consumer("payments-api-" + UUID.randomUUID())
                .lease(Duration.ofSeconds(2))
                .build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.principal())
                .maxBodyBytes(64 * 1024)
                .build();
        server = new TomcatServer(new IdempotencyFilter(requests), payments);
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
        close(store);
    }

    @Test
    void aRepeat_getsTheFirstResponse_replayed_andTheHandlerRunsOnce() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}");
        HttpResponse<byte[]> repeat = post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}");

        assertThat(payments.runs(path)).as("runs of the handler").isEqualTo(1);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue(IdempotentRequests.REPLAYED)).isEmpty();
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.body()).as("the replayed body, byte for byte").isEqualTo(first.body());
        assertThat(new String(repeat.body(), StandardCharsets.UTF_8)).contains("\"run\":1", "\"note\":\"ü\"");
        assertThat(repeat.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(repeat.headers().firstValue("Content-Type"))
                .isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(repeat.headers().firstValue(IdempotentRequests.REPLAYED)).hasValue("true");
        assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
        assertThat(repeat.headers().firstValue("Set-Cookie"))
                .as("never replayed")
                .isEmpty();
        assertThat(repeat.headers().firstValue("X-Run"))
                .as("not in the replayed headers")
                .isEmpty();
    }

    @Test
    void concurrentRequestsWithOneKey_runTheHandlerOnce_theOthersWaitOrGetTheReplay() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Callable<HttpResponse<byte[]>> send = () -> post(path + "?sleep=300", key, "alice", "{\"amount\":5}");
                answers.add(clients.submit(send));
            }
            int created = 0;
            int inFlight = 0;
            for (Future<HttpResponse<byte[]>> answer : answers) {
                HttpResponse<byte[]> response = answer.get();
                if (response.statusCode() == 409) {
                    inFlight++;
                    assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
                    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                } else {
                    assertThat(response.statusCode()).isEqualTo(201);
                    assertThat(new String(response.body(), StandardCharsets.UTF_8))
                            .contains("\"run\":1");
                    created++;
                }
            }
            assertThat(created + inFlight).isEqualTo(8);
            assertThat(inFlight).as("requests that met the first one in flight").isPositive();
        } finally {
            clients.shutdownNow();
        }
        assertThat(payments.runs(path)).as("runs of the handler").isEqualTo(1);
    }

    @Test
    void theSameJsonSerializedAnotherWay_isTheSameRequest_aDifferentBodyIs422() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        assertThat(post(path, key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}")
                        .statusCode())
                .isEqualTo(201);
        HttpResponse<byte[]> reordered = post(path, key, "alice", "{ \"currency\": \"EUR\", \"amount\": 1.0e2 }");
        assertThat(reordered.statusCode()).isEqualTo(201);
        assertThat(reordered.headers().firstValue(IdempotentRequests.REPLAYED)).hasValue("true");

        HttpResponse<byte[]> other = post(path, key, "alice", "{\"amount\":101,\"currency\":\"EUR\"}");
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(new String(other.body(), StandardCharsets.UTF_8)).contains("different request");
        assertThat(post(path + "?mode=x", key, "alice", "{\"amount\":100,\"currency\":\"EUR\"}")
                        .statusCode())
                .as("another query under the key")
                .isEqualTo(422);
        assertThat(payments.runs(path)).isEqualTo(1);
    }

    @Test
    void scopesKeepClientsApart_andARequestWithoutAScopeIsRefused() throws Exception {
        String path = path();
        String key = "order-1";
        HttpResponse<byte[]> alice = post(path, key, "alice", "{\"amount\":1}");
        HttpResponse<byte[]> bob = post(path, key, "bob", "{\"amount\":1}");
        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue(IdempotentRequests.REPLAYED))
                .as("bob never gets alice's answer")
                .isEmpty();
        assertThat(payments.runs(path)).isEqualTo(2);

        HttpResponse<byte[]> anonymous = post(path, key, null, "{\"amount\":1}");
        assertThat(anonymous.statusCode()).isEqualTo(400);
        assertThat(new String(anonymous.body(), StandardCharsets.UTF_8)).contains("cannot be scoped");
        assertThat(payments.runs(path)).isEqualTo(2);
    }

    @Test
    void aServerError_orAHandlerThatThrows_releasesTheKey_andTheRetryRunsTheHandler() throws Exception {
        String failing = path();
        String key = UUID.randomUUID().toString();
        assertThat(post(failing + "?mode=fail-first", key, "alice", "{}").statusCode())
                .isEqualTo(500);
        HttpResponse<byte[]> retry = post(failing + "?mode=fail-first", key, "alice", "{}");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotentRequests.REPLAYED)).isEmpty();
        assertThat(payments.runs(failing)).isEqualTo(2);

        String throwing = path();
        String other = UUID.randomUUID().toString();
        assertThat(twoTries(throwing + "?mode=throw-first", other)).containsExactly(500, 201);
        assertThat(payments.runs(throwing)).isEqualTo(2);
    }

    @Test
    void aClientErrorFromTheHandler_isKept_butAContainerErrorPageIsNot() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = post(path + "?mode=bad-request", key, "alice", "{}");
        HttpResponse<byte[]> repeat = post(path + "?mode=bad-request", key, "alice", "{}");
        assertThat(first.statusCode()).isEqualTo(400);
        assertThat(repeat.statusCode()).isEqualTo(400);
        assertThat(repeat.body()).isEqualTo(first.body());
        assertThat(payments.runs(path)).isEqualTo(1);

        String errors = path();
        String other = UUID.randomUUID().toString();
        assertThat(twoTries(errors + "?mode=send-error", other)).containsExactly(404, 404);
        assertThat(payments.runs(errors))
                .as("sendError is released: each try runs")
                .isEqualTo(2);
    }

    @Test
    void aResponseResetByTheHandler_isSentAndKeptAsItWasLastWritten() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = post(path + "?mode=reset", key, "alice", "{}");
        HttpResponse<byte[]> repeat = post(path + "?mode=reset", key, "alice", "{}");
        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("accepted 1");
        assertThat(first.headers().firstValue("X-Discarded")).isEmpty();
        assertThat(repeat.statusCode()).isEqualTo(202);
        assertThat(repeat.body()).isEqualTo(first.body());
    }

    @Test
    void badKeys_areRefusedWith400_beforeTheHandler() throws Exception {
        String path = path();
        assertThat(post(path, null, "alice", "{}").statusCode()).as("no key").isEqualTo(400);
        assertThat(post(path, "", "alice", "{}").statusCode()).as("empty").isEqualTo(400);
        assertThat(post(path, "x".repeat(256), "alice", "{}").statusCode())
                .as("256 characters")
                .isEqualTo(400);
        assertThat(post(path, "\"unterminated", "alice", "{}").statusCode())
                .as("bad string")
                .isEqualTo(400);
        HttpResponse<byte[]> two = client.send(
                HttpRequest.newBuilder(URI.create(server.url(path)))
                        .header("X-User", "alice")
                        .header(IdempotentRequests.HEADER, "a")
                        .header(IdempotentRequests.HEADER, "b")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(two.statusCode()).as("two keys").isEqualTo(400);
        assertThat(payments.runs(path)).isZero();

        String quoted = path();
        assertThat(post(quoted, "\"a key with spaces\"", "alice", "{}").statusCode())
                .isEqualTo(201);
        assertThat(post(quoted, "\"a key with spaces\"", "alice", "{}")
                        .headers()
                        .firstValue(IdempotentRequests.REPLAYED))
                .as("a Structured Field string")
                .hasValue("true");
    }

    @Test
    void aBodyOverTheLimit_is413_andAResponseOverTheStoresLimit_isStreamed_notKept() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> big = post(path, key, "alice", "{\"pad\":\"" + "p".repeat(64 * 1024) + "\"}");
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(payments.runs(path)).isZero();

        String large = path();
        long bytes = store.maxResultBytes() + 100_000L;
        HttpResponse<byte[]> first = post(large + "?mode=large&bytes=" + bytes, key, "alice", "{}");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).hasSize((int) bytes);
        HttpResponse<byte[]> repeat = post(large + "?mode=large&bytes=" + bytes, key, "alice", "{}");
        assertThat(repeat.statusCode()).isEqualTo(500);
        assertThat(new String(repeat.body(), StandardCharsets.UTF_8)).contains("was processed", "over the");
        assertThat(payments.runs(large)).as("processed once, not run again").isEqualTo(1);
    }

    @Test
    void aFormReachesTheHandler_afterItsBodyWasReadForTheFingerprint() throws Exception {
        String path = path();
        String key = UUID.randomUUID().toString();
        HttpRequest form = HttpRequest.newBuilder(URI.create(server.url(path + "?mode=form")))
                .header("X-User", "alice")
                .header(IdempotentRequests.HEADER, key)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("amount=12.50&note=caf%C3%A9"))
                .build();
        HttpResponse<String> first = client.send(form, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> repeat = client.send(form, HttpResponse.BodyHandlers.ofString());
        assertThat(first.body()).isEqualTo("amount=12.50 run=1");
        assertThat(repeat.body()).isEqualTo("amount=12.50 run=1");
    }

    /** The statuses of two tries of one request, one after the other. */
    private int[] twoTries(String pathAndQuery, String key) throws Exception {
        return new int[] {
            post(pathAndQuery, key, "alice", "{}").statusCode(),
            post(pathAndQuery, key, "alice", "{}").statusCode()
        };
    }

    private static String path() {
        return "/payments/" + UUID.randomUUID();
    }

    private HttpResponse<byte[]> post(String path, String key, String user, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url(path)))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            request.header(IdempotentRequests.HEADER, key);
        }
        if (user != null) {
            request.header("X-User", user);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
