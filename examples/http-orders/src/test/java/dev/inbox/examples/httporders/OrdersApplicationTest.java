package dev.inbox.examples.httporders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's curl session, on the real PostgreSQL through the application's own server: an order
 * placed, the same request again replayed (one row), the key with another body refused, a request
 * without a key refused — and the count of the customer's orders.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersApplicationTest {

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        String url = TestServers.postgres();
        registry.add("spring.datasource.url", () -> url);
    }

    @LocalServerPort
    int port;

    private final HttpClient client = HttpClient.newHttpClient();
    private final String customer = "alice-" + UUID.randomUUID();

    @Test
    void aRetriedOrder_isPlacedOnce_andTheRetryGetsTheFirstAnswer() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(key, "{\"item\":\"book\",\"quantity\":1}");
        HttpResponse<String> retry = post(key, "{\"item\":\"book\",\"quantity\":1}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Location"))
                .hasValueSatisfying(l -> assertThat(l).startsWith("/orders/"));
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(count()).as("orders placed").isEqualTo("1");

        assertThat(post(key, "{\"item\":\"book\",\"quantity\":2}").statusCode())
                .as("the key with another order")
                .isEqualTo(422);
        assertThat(post(null, "{\"item\":\"book\",\"quantity\":1}").statusCode())
                .as("no key")
                .isEqualTo(400);
        assertThat(post(UUID.randomUUID().toString(), "{\"item\":\"pen\",\"quantity\":3}")
                        .statusCode())
                .as("another key: another order")
                .isEqualTo(201);
        assertThat(count()).as("orders placed").isEqualTo("2");
    }

    private HttpResponse<String> post(@Nullable String key, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Content-Type", "application/json")
                .header("X-Customer", customer)
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String count() throws Exception {
        return client.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + port + "/customers/" + customer + "/orders/count"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
