package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotencyFilter} in a real Tomcat, over real HTTP, on the store a subclass supplies: the
 * HTTP kit's rules ({@link HttpContract}, on {@code /kit/*}), and what is the filter's own — a
 * container's error page, a reset response, a response over the store's limit, a form, Structured
 * Field keys — on {@code /payments/*}.
 */
abstract class IdempotencyFilterContract extends HttpContract {

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final PaymentsServlet payments = new PaymentsServlet();
    private @Nullable InboxStore store;
    private @Nullable TomcatServer server;

    /** A store on its server, its schema ready. */
    protected abstract InboxStore createStore() throws Exception;

    /** Closes the store and what it runs on. */
    protected void close(InboxStore store) throws Exception {
        store.close();
    }

    @Override
    protected HttpHarness createHarness(HttpKit kit) throws Exception {
        InboxStore created = createStore();
        store = created;
        Inbox inbox = Inbox.builder(created)
                .consumer("payments-api-" + UUID.randomUUID())
                .lease(Duration.ofSeconds(2))
                .build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.principal())
                .maxBodyBytes(HttpKit.MAX_BODY_BYTES)
                .build();
        TomcatServer tomcat = new TomcatServer(
                new IdempotencyFilter(requests),
                Map.of("/payments/*", payments, HttpKit.PATH_PREFIX + "*", new KitServlet(kit)));
        server = tomcat;
        return new HttpHarness() {
            @Override
            public URI base() {
                return URI.create(tomcat.base());
            }

            @Override
            public void close() throws Exception {
                try (AutoCloseable closing = () -> IdempotencyFilterContract.this.close(created)) {
                    tomcat.close();
                }
            }
        };
    }

    @Test
    void aContainerErrorPage_isNotKept_eachTryRunsTheHandler() throws Exception {
        String errors = path();
        String key = UUID.randomUUID().toString();
        assertThat(twoTries(errors + "?mode=send-error", key)).containsExactly(404, 404);
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
    void aKeyInStructuredFieldSyntax_isItsString_andAMalformedOneIs400() throws Exception {
        String path = path();
        assertThat(post(path, "\"unterminated", "alice", "{}").statusCode())
                .as("a string without its closing quote")
                .isEqualTo(400);
        assertThat(payments.runs(path)).isZero();

        assertThat(post(path, "\"a key with spaces\"", "alice", "{}").statusCode())
                .isEqualTo(201);
        assertThat(post(path, "\"a key with spaces\"", "alice", "{}").headers().firstValue(IdempotentRequests.REPLAYED))
                .as("a Structured Field string")
                .hasValue("true");
        assertThat(payments.runs(path)).isEqualTo(1);
    }

    @Test
    void aResponseOverTheStoresLimit_isStreamed_notKept_andItsRepeatSaysSo() throws Exception {
        String key = UUID.randomUUID().toString();
        String large = path();
        long bytes = requireStore().maxResultBytes() + 100_000L;
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
        HttpRequest form = HttpRequest.newBuilder(URI.create(requireServer().url(path + "?mode=form")))
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

    private TomcatServer requireServer() {
        if (server == null) {
            throw new IllegalStateException("the harness did not start");
        }
        return server;
    }

    private InboxStore requireStore() {
        if (store == null) {
            throw new IllegalStateException("the harness did not start");
        }
        return store;
    }

    private static String path() {
        return "/payments/" + UUID.randomUUID();
    }

    private HttpResponse<byte[]> post(String path, String key, String user, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(requireServer().url(path)))
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
