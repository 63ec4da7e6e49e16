package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.FaultProxy;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.TestServers;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The filter on PostgreSQL (the test server: {@link TestServers#postgres()}), and with it cut off. */
class PostgresIdempotencyFilterTest extends IdempotencyFilterContract {

    private HikariDataSource pool;

    @Override
    protected InboxStore createStore() {
        pool = pool(TestServers.postgres());
        PostgresInboxStore store = PostgresInboxStore.builder(pool).build();
        store.createSchemaIfMissing();
        return store;
    }

    @Override
    protected void close(InboxStore store) {
        store.close();
        pool.close();
    }

    @Test
    void aStoreThatCannotAnswer_is503WithRetryAfter_theHandlerNeverRunsUnguarded() throws Exception {
        InetSocketAddress server = Endpoints.address(TestServers.postgres());
        PaymentsServlet handler = new PaymentsServlet();
        try (FaultProxy proxy = FaultProxy.start(server.getHostString(), server.getPort());
                HikariDataSource cutOff = pool(Endpoints.via(TestServers.postgres(), proxy.host(), proxy.port()))) {
            InboxStore store = PostgresInboxStore.builder(cutOff).build();
            Inbox inbox = Inbox.builder(store)
                    .consumer("payments-api-" + UUID.randomUUID())
                    .build();
            IdempotentRequests requests = IdempotentRequests.builder(inbox)
                    .scope(IdempotencyScope.global())
                    .build();
            try (TomcatServer tomcat = new TomcatServer(new IdempotencyFilter(requests), handler)) {
                HttpClient client = HttpClient.newHttpClient();
                HttpRequest request = HttpRequest.newBuilder(URI.create(tomcat.url("/payments/down")))
                        .header(IdempotentRequests.HEADER, UUID.randomUUID().toString())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))
                        .build();
                proxy.refuse();
                HttpResponse<String> down = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(down.statusCode()).isEqualTo(503);
                assertThat(down.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(down.body()).contains("cannot answer");
                assertThat(handler.runs("/payments/down")).isZero();

                proxy.accept();
                HttpResponse<String> back = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(back.statusCode()).isEqualTo(201);
                assertThat(handler.runs("/payments/down")).isEqualTo(1);
            }
        }
    }

    @Test
    void aStoreThatCannotAnswer_withFailOpenChosen_runsTheHandlerUnguarded_andARetryRunsItAgain() throws Exception {
        InetSocketAddress server = Endpoints.address(TestServers.postgres());
        PaymentsServlet handler = new PaymentsServlet();
        try (FaultProxy proxy = FaultProxy.start(server.getHostString(), server.getPort());
                HikariDataSource cutOff = pool(Endpoints.via(TestServers.postgres(), proxy.host(), proxy.port()))) {
            InboxStore store = PostgresInboxStore.builder(cutOff).build();
            Inbox inbox = Inbox.builder(store)
                    .consumer("payments-api-" + UUID.randomUUID())
                    .build();
            IdempotentRequests requests = IdempotentRequests.builder(inbox)
                    .scope(IdempotencyScope.global())
                    .failOpen(true)
                    .build();
            assertThat(requests.failsOpen()).isTrue();
            try (TomcatServer tomcat = new TomcatServer(new IdempotencyFilter(requests), handler)) {
                HttpClient client = HttpClient.newHttpClient();
                HttpRequest request = HttpRequest.newBuilder(URI.create(tomcat.url("/payments/open")))
                        .header(IdempotentRequests.HEADER, UUID.randomUUID().toString())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}"))
                        .build();
                proxy.refuse();
                HttpResponse<String> down = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(down.statusCode())
                        .as("served while the store is down")
                        .isEqualTo(201);
                assertThat(down.headers().firstValue("Idempotent-Replayed")).isEmpty();
                assertThat(handler.runs("/payments/open")).isEqualTo(1);

                // What fail-open costs: nothing was claimed or kept, so the same key runs again.
                proxy.accept();
                HttpResponse<String> back = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(back.statusCode()).isEqualTo(201);
                assertThat(handler.runs("/payments/open")).isEqualTo(2);
                HttpResponse<String> replay = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
                assertThat(handler.runs("/payments/open")).isEqualTo(2);
            }
        }
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(10);
        config.setConnectionTimeout(1_000);
        config.setInitializationFailTimeout(-1); // built while the server may be cut off
        return new HikariDataSource(config);
    }
}
