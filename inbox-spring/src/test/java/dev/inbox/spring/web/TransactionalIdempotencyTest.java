package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.spring.Database;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * Transactional mode through Spring MVC on PostgreSQL: the key's claim, an {@code @Transactional}
 * handler's insert and the kept response commit together or not at all — a failed commit (the
 * stand-in for a process that dies between the handler and the kept response) leaves neither the
 * order nor the key, and the retry places the order once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionalIdempotencyTest {

    @RegisterExtension
    static final Database db = new Database();

    private static final String ORDERS = "inbox_http_orders";

    /** Places an order: an insert in the request's transaction; the query can fail it or its commit. */
    @RestController
    static class Orders {
        private final JdbcTemplate jdbc;
        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @IdempotentRoute
        @PostMapping("/orders/{id}")
        @Transactional
        ResponseEntity<String> place(
                @PathVariable("id") String id,
                @RequestParam(name = "mode", defaultValue = "") String mode,
                @RequestParam(name = "sleep", defaultValue = "0") long sleep)
                throws InterruptedException {
            int run = runs.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            jdbc.update("INSERT INTO " + ORDERS + " (order_id, run) VALUES (?, ?)", id, run);
            Thread.sleep(sleep);
            if (run == 1 && mode.equals("fail-first")) {
                return ResponseEntity.status(500).body("failed");
            }
            if (run == 1 && mode.equals("break-commit-first")) {
                // A deferred unique constraint, violated: the commit fails after the handler is done.
                jdbc.update("INSERT INTO " + ORDERS + "_deferred (k) VALUES (1), (1)");
            }
            return ResponseEntity.status(201)
                    .header("Location", "/orders/" + id)
                    .body("{\"order\":\"" + id + "\",\"run\":" + run + "}");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @EnableTransactionManagement
    static class Web {
        @Bean
        Orders orders() {
            return new Orders(db.jdbc);
        }

        @Bean
        PlatformTransactionManager transactionManager() {
            return db.transactions;
        }
    }

    private final HttpClient client = HttpClient.newHttpClient();
    private MvcServer server;

    @BeforeAll
    void start() throws Exception {
        db.jdbc.execute("CREATE TABLE IF NOT EXISTS " + ORDERS + " (order_id text, run int)");
        db.jdbc.execute("CREATE TABLE IF NOT EXISTS " + ORDERS + "_deferred (k int, CONSTRAINT " + ORDERS
                + "_once UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)");
        Inbox inbox =
                Inbox.builder(db.store).consumer("http-tx-" + UUID.randomUUID()).build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.global())
                .transactional(new SpringRequestTransactions(db.transactions, db.pool, inbox))
                .build();
        server = new MvcServer(Web.class, application -> {}, requests);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theOrderAndTheKeptResponse_commitTogether_andARepeatIsReplayed() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(order, "", key);
        HttpResponse<String> repeat = post(order, "", key);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.body()).isEqualTo(first.body());
        assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(repeat.headers().firstValue("Location")).hasValue("/orders/" + order);
        assertThat(rows(order)).isEqualTo(1);
    }

    @Test
    void a5xx_rollsTheHandlersWriteBack_andReleasesTheKey() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = UUID.randomUUID().toString();
        assertThat(post(order, "mode=fail-first", key).statusCode()).isEqualTo(500);
        assertThat(rows(order)).as("the insert of the failed run").isZero();

        HttpResponse<String> retry = post(order, "mode=fail-first", key);
        assertThat(retry.statusCode()).as("run again: the key was released").isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(rows(order)).isEqualTo(1);
    }

    @Test
    void aCommitThatFailsAfterTheHandler_leavesNeitherTheOrderNorTheKey_andTheRetryPlacesItOnce() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = UUID.randomUUID().toString();
        HttpResponse<String> failed = post(order, "mode=break-commit-first", key);
        assertThat(failed.statusCode())
                .as("not the handler's 201: its effect did not commit")
                .isEqualTo(503);
        assertThat(failed.headers().firstValue("Retry-After")).isPresent();
        assertThat(failed.body()).doesNotContain("\"order\"");
        assertThat(rows(order)).as("the order of the run whose commit failed").isZero();

        HttpResponse<String> retry = post(order, "mode=break-commit-first", key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).contains("\"run\":2");
        HttpResponse<String> repeat = post(order, "mode=break-commit-first", key);
        assertThat(repeat.body()).isEqualTo(retry.body());
        assertThat(rows(order)).as("placed once").isEqualTo(1);
    }

    @Test
    void concurrentRequestsWithOneKey_waitForTheFirstTransaction_andAllGetItsResponse() throws Exception {
        String order = UUID.randomUUID().toString();
        String key = UUID.randomUUID().toString();
        int clients = 4;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return post(order, "sleep=300", key);
                }));
            }
            go.countDown();
            String body = null;
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                assertThat(response.statusCode())
                        .as("each waited in the database, none got 409")
                        .isEqualTo(201);
                body = body == null ? response.body() : body;
                assertThat(response.body()).isEqualTo(body);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(rows(order)).isEqualTo(1);
    }

    @Test
    void anInboxOutsideTheDatabase_isRefused() {
        try (CaffeineInboxStore memory = CaffeineInboxStore.builder().build()) {
            Inbox inbox = Inbox.builder(memory).consumer("memory").build();
            assertThatThrownBy(() -> new SpringRequestTransactions(db.transactions, db.pool, inbox))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("transactional mode needs an inbox on a store in the handler's database");
            IdempotentRequests requests = IdempotentRequests.builder(inbox)
                    .scope(IdempotencyScope.global())
                    .transactional(() -> {
                        throw new IllegalStateException("never opened");
                    })
                    .build();
            assertThatThrownBy(() -> new IdempotencyWebFilter(requests))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("transactional mode needs the handler on the request's thread");
        }
    }

    private int rows(String order) {
        Integer rows =
                db.jdbc.queryForObject("SELECT count(*) FROM " + ORDERS + " WHERE order_id = ?", Integer.class, order);
        return rows == null ? 0 : rows;
    }

    private HttpResponse<String> post(String order, String query, String key) throws Exception {
        return client.send(
                HttpRequest.newBuilder(server.base.resolve("/orders/" + order + (query.isEmpty() ? "" : "?" + query)))
                        .header("Idempotency-Key", key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
