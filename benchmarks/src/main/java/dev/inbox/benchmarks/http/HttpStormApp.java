package dev.inbox.benchmarks.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.benchmarks.storm.StormArgs;
import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spring.web.SpringRequestTransactions;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The application {@link HttpStorm} kills: an embedded Tomcat whose {@code POST /transfers} route is
 * guarded by the {@code Idempotency-Key} filter on PostgreSQL and writes one row of a ledger table
 * per request it runs. In {@code transactional} mode the claim, the ledger row and the kept response
 * are written in the request's transaction ({@link SpringRequestTransactions}; the handler's {@code
 * JdbcTemplate} joins it); in {@code lease} mode the handler's write commits on its own and the
 * response is kept after it. The handler pauses before and after its write ({@code --work-ms} in
 * all), so a kill finds requests in flight on both sides of the write. {@code GET /ready} answers
 * once Tomcat serves; the process runs until it is killed.
 *
 * <pre>{@code
 * java -cp benchmarks.jar dev.inbox.benchmarks.http.HttpStormApp --port 8080 --table ledger \
 *     --consumer storm [--mode transactional|lease] [--work-ms 20] [--lease-ms 2000] \
 *     [--incarnation 1] [--jdbc-url URL]
 * }</pre>
 */
public final class HttpStormApp {

    private HttpStormApp() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = StormArgs.parse(argv);
        int port = StormArgs.number(args, "port", 0, 1);
        String table = StormArgs.tableName(StormArgs.required(args, "table"));
        String consumer = StormArgs.required(args, "consumer");
        boolean transactional = StormArgs.transactional(args.getOrDefault("mode", "transactional"));
        int workMs = StormArgs.number(args, "work-ms", 20, 0);
        Duration lease = Duration.ofMillis(StormArgs.number(args, "lease-ms", 2000, 1));
        int incarnation = StormArgs.number(args, "incarnation", 1, 1);

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.getOrDefault("jdbc-url", HttpStorm.DEFAULT_JDBC_URL));
        config.setMaximumPoolSize(24);
        HikariDataSource pool = new HikariDataSource(config);
        PostgresInboxStore store = PostgresInboxStore.builder(pool).build();
        Inbox inbox = Inbox.builder(store).consumer(consumer).lease(lease).build();
        IdempotentRequests.Builder requests = IdempotentRequests.builder(inbox).scope(IdempotencyScope.global());
        if (transactional) {
            requests.transactional(new SpringRequestTransactions(new DataSourceTransactionManager(pool), pool, inbox));
        }

        Path dir = Files.createTempDirectory("inbox-http-storm");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(dir.toString());
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", dir.toString());
        Tomcat.addServlet(context, "transfers", new Transfers(new JdbcTemplate(pool), table, incarnation, workMs));
        context.addServletMappingDecoded("/transfers", "transfers");
        Tomcat.addServlet(context, "ready", new Ready());
        context.addServletMappingDecoded("/ready", "ready");
        FilterDef definition = new FilterDef();
        definition.setFilterName("idempotency");
        definition.setFilter(new IdempotencyFilter(requests.build()));
        context.addFilterDef(definition);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName("idempotency");
        mapping.addURLPattern("/transfers");
        context.addFilterMap(mapping);
        tomcat.start();
        System.out.println(
                "READY " + incarnation + " pid " + ProcessHandle.current().pid());
        tomcat.getServer().await();
    }

    /** The guarded route: one ledger row per run of the handler, its id in the answer. */
    static final class Transfers extends HttpServlet {
        private final JdbcTemplate jdbc;
        private final String insert;
        private final int incarnation;
        private final int workMs;

        Transfers(JdbcTemplate jdbc, String table, int incarnation, int workMs) {
            this.jdbc = jdbc;
            this.insert = "INSERT INTO " + table + " (idem_key, incarnation, body) VALUES (?, ?, ?) RETURNING id";
            this.incarnation = incarnation;
            this.workMs = workMs;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String key = request.getHeader(IdempotentRequests.HEADER);
            String body = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            pause();
            Long id = jdbc.queryForObject(insert, Long.class, key, incarnation, body);
            pause();
            byte[] answer =
                    ("{\"transfer\":" + id + ",\"incarnation\":" + incarnation + "}").getBytes(StandardCharsets.UTF_8);
            response.setStatus(201);
            response.setContentType("application/json");
            response.setHeader("Location", "/transfers/" + id);
            response.setContentLength(answer.length);
            response.getOutputStream().write(answer);
        }

        private void pause() {
            try {
                Thread.sleep(ThreadLocalRandom.current().nextInt(workMs / 2 + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Answers 200 once the server serves. */
    static final class Ready extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) {
            response.setStatus(200);
        }
    }
}
