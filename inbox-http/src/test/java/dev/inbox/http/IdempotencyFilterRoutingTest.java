package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which requests the filter takes on: its routes predicate, and one pass however often it is mapped. */
class IdempotencyFilterRoutingTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final IdempotentRequests requests = IdempotentRequests.builder(
                    Inbox.builder(store).consumer("routing").build())
            .scope(IdempotencyScope.global())
            .build();
    private final PaymentsServlet payments = new PaymentsServlet();
    private final HttpClient client = HttpClient.newHttpClient();

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aFilterOnTheWayTwice_guardsTheRequestOnce() throws Exception {
        IdempotencyFilter filter = new IdempotencyFilter(requests);
        try (TomcatServer tomcat = new TomcatServer(List.of(filter, filter), Map.of("/payments/*", payments))) {
            String path = "/payments/" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();
            HttpResponse<String> first = post(tomcat, path, key);
            HttpResponse<String> repeat = post(tomcat, path, key);

            assertThat(first.statusCode()).as("not a 409 from its own claim").isEqualTo(201);
            assertThat(repeat.headers().firstValue(IdempotentRequests.REPLAYED)).hasValue("true");
            assertThat(payments.runs(path)).isEqualTo(1);
        }
    }

    @Test
    void requestsTheRoutesPredicateRefuses_passThroughUnguarded() throws Exception {
        IdempotencyFilter filter = new IdempotencyFilter(
                requests, request -> request.getRequestURI().startsWith("/payments/guarded"));
        try (TomcatServer tomcat = new TomcatServer(filter, payments)) {
            String open = "/payments/open-" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();
            post(tomcat, open, key);
            HttpResponse<String> again = post(tomcat, open, key);
            assertThat(again.headers().firstValue(IdempotentRequests.REPLAYED)).isEmpty();
            assertThat(payments.runs(open))
                    .as("an unguarded route runs each time")
                    .isEqualTo(2);

            String guarded = "/payments/guarded-" + UUID.randomUUID();
            post(tomcat, guarded, key);
            assertThat(post(tomcat, guarded, key).headers().firstValue(IdempotentRequests.REPLAYED))
                    .hasValue("true");
            assertThat(payments.runs(guarded)).isEqualTo(1);
        }
    }

    @Test
    void aResponseTheCoreCannotKeep_failsTheRequest_andLeavesTheKeyFree() throws Exception {
        try (TomcatServer tomcat = new TomcatServer(new IdempotencyFilter(requests), payments)) {
            String path = "/payments/" + UUID.randomUUID();
            String key = UUID.randomUUID().toString();
            assertThat(post(tomcat, path + "?mode=bad-status", key).statusCode())
                    .isEqualTo(500);
            HttpResponse<String> retry = post(tomcat, path, key);
            assertThat(retry.statusCode())
                    .as("not 409: the failed request's claim was released, not left to its lease")
                    .isEqualTo(201);
            assertThat(payments.runs(path)).isEqualTo(2);
        }
    }

    @Test
    void aNullRoutesPredicate_isRefused() {
        assertThatThrownBy(() -> new IdempotencyFilter(requests, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routes");
    }

    private HttpResponse<String> post(TomcatServer tomcat, String path, String key) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create(tomcat.url(path)))
                        .header(IdempotentRequests.HEADER, key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
