package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link IdempotentRequests.Builder#waitWhileInFlight}: a repeat of a running request waits for its answer, boundedly. */
class InFlightWaitTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Inbox inbox = Inbox.builder(store).consumer("waits").build();
    private final PaymentsServlet payments = new PaymentsServlet();
    private final HttpClient client = HttpClient.newHttpClient();

    @AfterEach
    void close() {
        store.close();
    }

    private IdempotentRequests waiting(Duration wait) {
        return IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.global())
                .waitWhileInFlight(wait)
                .build();
    }

    @Test
    void aRepeatWhileTheFirstRuns_getsTheFirstResponse_whenItComesWithinTheWait() throws Exception {
        try (TomcatServer tomcat = new TomcatServer(new IdempotencyFilter(waiting(Duration.ofSeconds(20))), payments)) {
            String path = "/payments/" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();
            CompletableFuture<HttpResponse<String>> first = postAsync(tomcat, path + "?sleep=1500", key);
            awaitRuns(path, 1);
            HttpResponse<String> repeat =
                    postAsync(tomcat, path + "?sleep=1500", key).get(30, TimeUnit.SECONDS);

            assertThat(repeat.statusCode()).as("not a 409: it waited").isEqualTo(201);
            assertThat(repeat.headers().firstValue(IdempotentRequests.REPLAYED)).hasValue("true");
            assertThat(repeat.body()).isEqualTo(first.get(30, TimeUnit.SECONDS).body());
            assertThat(payments.runs(path)).isEqualTo(1);
        }
    }

    @Test
    void aRepeatWhoseWaitPasses_isAnswered409_whileTheFirstStillRuns() throws Exception {
        try (TomcatServer tomcat = new TomcatServer(new IdempotencyFilter(waiting(Duration.ofMillis(300))), payments)) {
            String path = "/payments/" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();
            CompletableFuture<HttpResponse<String>> first = postAsync(tomcat, path + "?mode=hold", key);
            awaitRuns(path, 1);
            HttpResponse<String> repeat;
            try {
                repeat = postAsync(tomcat, path + "?mode=hold", key).get(15, TimeUnit.SECONDS);
            } finally {
                payments.release();
            }

            assertThat(repeat.statusCode())
                    .as("answered while the first was held: the wait is bounded")
                    .isEqualTo(409);
            assertThat(repeat.headers().firstValue("Retry-After")).isPresent();
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            assertThat(payments.runs(path)).isEqualTo(1);
        }
    }

    @Test
    void thePause_isNullUnlessTheKeyIsInFlightAndTheWaitLasts() {
        IdempotentRequests none = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.global())
                .build();
        IdempotentRequests.Refuse busy = new IdempotentRequests.Refuse(409, "in flight", Duration.ofSeconds(1));
        assertThat(none.pauseBeforeAgain(busy, System.nanoTime(), 0))
                .as("no wait configured")
                .isNull();

        IdempotentRequests some = waiting(Duration.ofSeconds(10));
        Duration pause = some.pauseBeforeAgain(busy, System.nanoTime(), 0);
        assertThat(pause).isNotNull().isPositive().isLessThanOrEqualTo(Duration.ofMillis(20));
        assertThat(some.pauseBeforeAgain(busy, System.nanoTime(), 40))
                .as("pauses grow to at most 500 ms")
                .isLessThanOrEqualTo(Duration.ofMillis(500));
        assertThat(some.pauseBeforeAgain(
                        busy, System.nanoTime() - Duration.ofSeconds(11).toNanos(), 3))
                .as("the wait has passed")
                .isNull();
        assertThat(some.pauseBeforeAgain(new IdempotentRequests.Refuse(422, "other", null), System.nanoTime(), 0))
                .as("only a key in flight is waited for")
                .isNull();
        assertThat(some.pauseBeforeAgain(new IdempotentRequests.PassThrough(), System.nanoTime(), 0))
                .isNull();
    }

    @Test
    void aWaitOutsideZeroToAMinute_isRefused() {
        IdempotentRequests.Builder builder = IdempotentRequests.builder(inbox);
        assertThatThrownBy(() -> builder.waitWhileInFlight(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitWhileInFlight");
        assertThatThrownBy(() -> builder.waitWhileInFlight(Duration.ofMinutes(1).plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.waitWhileInFlight(null)).isInstanceOf(IllegalArgumentException.class);
    }

    private void awaitRuns(String path, int runs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (payments.runs(path) < runs) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the handler of " + path + " did not start within 15 s");
            }
            Thread.sleep(10);
        }
    }

    private CompletableFuture<HttpResponse<String>> postAsync(TomcatServer tomcat, String path, String key) {
        return client.sendAsync(
                HttpRequest.newBuilder(URI.create(tomcat.url(path)))
                        .header(IdempotentRequests.HEADER, key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}", StandardCharsets.UTF_8))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
