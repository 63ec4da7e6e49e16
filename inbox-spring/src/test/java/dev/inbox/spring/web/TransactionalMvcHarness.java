package dev.inbox.spring.web;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.tck.http.HttpKit;
import dev.inbox.tck.http.TransactionalHttpHarness;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * Spring MVC in transactional mode on a SQL {@link KitStore}, as {@link TransactionalHttpHarness}
 * says: each request's claim in the transaction {@link SpringRequestTransactions} opens, the kit's
 * handler an annotated controller that writes one row per run with a {@link JdbcTemplate} (which
 * joins that transaction), and that ends the transaction's connection from another one when the kit
 * asks for a crash. A request with a key in flight waits for that transaction in the database.
 */
final class TransactionalMvcHarness implements TransactionalHttpHarness {

    /** The handler's rows, in a table of this harness's own. */
    static final class Effects {
        final DataSource dataSource;
        final String table = "http_kit_effects_" + UUID.randomUUID().toString().replace("-", "");
        private final JdbcTemplate jdbc;

        Effects(DataSource dataSource) {
            this.dataSource = dataSource;
            this.jdbc = new JdbcTemplate(dataSource);
            jdbc.execute("CREATE TABLE " + table + " (path VARCHAR(300) NOT NULL)");
        }

        /** One row for {@code path}, in the transaction bound to this thread. */
        void write(String path) {
            jdbc.update("INSERT INTO " + table + " (path) VALUES (?)", path);
        }

        int count(String path) {
            Integer rows =
                    jdbc.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE path = ?", Integer.class, path);
            return rows == null ? 0 : rows;
        }

        /**
         * Ends the database connection of the transaction bound to this thread from another connection
         * (one of the pool's, not the bound one), and waits until the server no longer lists it: the
         * database rolls its transaction back. The handler then returns normally.
         */
        void crash() throws SQLException, InterruptedException {
            Connection bound = DataSourceUtils.getConnection(dataSource);
            boolean postgres = bound.getMetaData().getDatabaseProductName().equals("PostgreSQL");
            long id = idOf(bound, postgres);
            try (Connection other = dataSource.getConnection();
                    Statement s = other.createStatement()) {
                if (idOf(other, postgres) == id) {
                    throw new IllegalStateException("the crash must come from another connection than the request's");
                }
                s.execute(postgres ? "SELECT pg_terminate_backend(" + id + ")" : "KILL " + id);
                String listed = postgres
                        ? "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + id
                        : "SELECT COUNT(*) FROM information_schema.processlist WHERE id = " + id;
                Instant until = Instant.now().plus(Duration.ofSeconds(10));
                while (true) {
                    try (ResultSet count = s.executeQuery(listed)) {
                        count.next();
                        if (count.getInt(1) == 0) {
                            return;
                        }
                    }
                    if (Instant.now().isAfter(until)) {
                        throw new IllegalStateException("connection " + id + " still open 10 s after it was ended");
                    }
                    Thread.sleep(10);
                }
            }
        }

        private static long idOf(Connection c, boolean postgres) throws SQLException {
            try (Statement s = c.createStatement();
                    ResultSet row = s.executeQuery(postgres ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()")) {
                row.next();
                return row.getLong(1);
            }
        }

        void drop() {
            jdbc.execute("DROP TABLE " + table);
        }
    }

    /** The kit's handler, writing its row and crashing when the kit says so. */
    @RestController
    static class WritingKitController {
        private final HttpKit kit;
        private final Effects effects;

        WritingKitController(HttpKit kit, Effects effects) {
            this.kit = kit;
            this.effects = effects;
        }

        @IdempotentRoute
        @PostMapping(HttpKit.PATH_PREFIX + "**")
        ResponseEntity<byte[]> kit(HttpServletRequest request) throws Exception {
            String path = request.getRequestURI();
            String query = request.getQueryString();
            HttpKit.Answer answer = kit.respond(path, query);
            effects.write(path);
            if (kit.crashesAfter(path, query)) {
                effects.crash();
            }
            ResponseEntity.BodyBuilder response = ResponseEntity.status(answer.status());
            answer.headers().forEach((name, value) -> response.header(name, value));
            return response.body(answer.body());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Web {
        @Bean
        WritingKitController writingKitController(HttpKit kit, Effects effects) {
            return new WritingKitController(kit, effects);
        }
    }

    private final KitStore store;
    private final Effects effects;
    private final MvcServer server;

    TransactionalMvcHarness(HttpKit kit, KitStore store) throws Exception {
        this.store = store;
        DataSource dataSource = Objects.requireNonNull(store.dataSource(), "transactional mode needs a SQL store");
        Inbox inbox = Inbox.builder(store.store())
                .consumer("mvc-tx-" + UUID.randomUUID())
                .build();
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.header(HttpKit.PRINCIPAL_HEADER))
                .maxBodyBytes(HttpKit.MAX_BODY_BYTES)
                .transactional(
                        new SpringRequestTransactions(new DataSourceTransactionManager(dataSource), dataSource, inbox))
                .build();
        this.effects = new Effects(dataSource);
        this.server = new MvcServer(
                Web.class,
                application -> application.addBeanFactoryPostProcessor(beans -> {
                    beans.registerSingleton("httpKit", kit);
                    beans.registerSingleton("kitEffects", effects);
                }),
                requests);
    }

    @Override
    public URI base() {
        return server.base;
    }

    @Override
    public int effects(String path) {
        return effects.count(path);
    }

    @Override
    public void close() throws Exception {
        try (KitStore closing = store) {
            server.close();
            effects.drop();
        }
    }
}
