package dev.inbox.benchmarks.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.benchmarks.report.Spread;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.web.SpringRequestTransactions;
import io.lettuce.core.RedisURI;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Requests per second and latency of one {@code POST} route in an embedded Tomcat: without the
 * {@code Idempotency-Key} filter ({@code bare}), and with it on the embedded store, PostgreSQL
 * (lease mode, and {@code postgres-tx}: transactional mode, the claim and the kept response in one
 * transaction of the request) and Redis — every request a new key (the common case: a claim, the handler, the response kept) and,
 * as {@code …-replay}, every request a repeat of a finished one (a claim that finds the kept
 * response). The same servlet answers every route (it reads the body and answers {@code 201} with
 * a small JSON body). The variants run in interleaved rounds, in a rotating order, each for the
 * same time with the same number of client threads ({@code HttpURLConnection}, kept alive, in this
 * JVM, over loopback); each variant's figure is the median of its rounds, with the lowest and highest, and
 * a ratio to {@code bare} gets a verdict only when the two spreads do not overlap.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.http.HttpThroughput \
 *     [--seconds 5] [--rounds 5] [--clients 8] [--jdbc-url URL] [--redis-url URL] > results.json
 * }</pre>
 */
public final class HttpThroughput {

    private static final byte[] BODY =
            "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"order-1\"}".getBytes(StandardCharsets.UTF_8);

    /** The route's handler: reads the body, answers a created payment. */
    static final class Payments extends HttpServlet {
        private final AtomicLong created = new AtomicLong();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            int read = request.getInputStream().readAllBytes().length;
            long id = created.incrementAndGet();
            byte[] answer = ("{\"id\":" + id + ",\"read\":" + read + ",\"status\":\"created\"}")
                    .getBytes(StandardCharsets.UTF_8);
            response.setStatus(201);
            response.setContentType("application/json");
            response.setHeader("Location", "/payments/" + id);
            response.setContentLength(answer.length);
            response.getOutputStream().write(answer);
        }
    }

    /** One variant's rounds. */
    record Rounds(List<Double> perSecond, List<Double> p50Micros, List<Double> p99Micros) {
        Rounds() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }
    }

    /**
     * Tomcat's logging, kept to errors: its start-up chatter, and its report of the threads a
     * stopped application left behind (the inbox's shared renewal pool, by design), would bury the
     * rounds on standard error.
     */
    private static final java.util.logging.Logger TOMCAT = java.util.logging.Logger.getLogger("org.apache");

    private HttpThroughput() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        TOMCAT.setLevel(java.util.logging.Level.SEVERE);
        // The clients: java.net's HttpURLConnection, a kept-alive connection per client thread (Java's
        // HttpClient on Java 17 now and then lost a request on a pooled connection it was closing),
        // and no silent second try of a POST whose connection failed: any failure ends the run.
        System.setProperty("sun.net.http.retryPost", "false");
        int seconds = positive(args.getOrDefault("seconds", "5"), "seconds");
        int rounds = positive(args.getOrDefault("rounds", "5"), "rounds");
        int clients = positive(args.getOrDefault("clients", "8"), "clients");
        System.setProperty("http.maxConnections", Integer.toString(clients));
        String jdbcUrl = args.getOrDefault("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        String redisUrl = args.getOrDefault("redis-url", "redis://127.0.0.1:6379");

        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(clients + 2);
        String run = UUID.randomUUID().toString().substring(0, 8);
        Map<String, InboxStore> stores = new LinkedHashMap<>();
        try (HikariDataSource pool = new HikariDataSource(config)) {
            PostgresInboxStore postgres = PostgresInboxStore.builder(pool).build();
            postgres.createSchemaIfMissing();
            stores.put("caffeine", CaffeineInboxStore.builder().build());
            stores.put("postgres", postgres);
            stores.put(
                    "redis", RedisInboxStore.builder(RedisURI.create(redisUrl)).build());
            Path dir = Files.createTempDirectory("inbox-http-bench");
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(dir.toString());
            Connector connector = new Connector();
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            // Keep each client connection for the whole run: Tomcat closes one after 100 requests by
            // default, and a client may send on a kept connection just as it closes.
            connector.setProperty("maxKeepAliveRequests", "-1");
            connector.setProperty("keepAliveTimeout", "600000");
            tomcat.getService().addConnector(connector);
            tomcat.setConnector(connector);
            Context context = tomcat.addContext("", dir.toString());
            Tomcat.addServlet(context, "payments", new Payments());
            context.addServletMappingDecoded("/*", "payments");
            for (Map.Entry<String, InboxStore> store : stores.entrySet()) {
                Inbox inbox = Inbox.builder(store.getValue())
                        .consumer("http-bench-" + run)
                        .build();
                IdempotentRequests requests = IdempotentRequests.builder(inbox)
                        .scope(IdempotencyScope.global())
                        .build();
                filter(context, store.getKey(), new IdempotencyFilter(requests));
            }
            // Transactional mode on PostgreSQL: the claim and the kept response in the request's
            // transaction (the handler writes nothing of its own here: the mode's cost alone).
            Inbox transactionalInbox =
                    Inbox.builder(postgres).consumer("http-bench-tx-" + run).build();
            filter(
                    context,
                    "postgres-tx",
                    new IdempotencyFilter(IdempotentRequests.builder(transactionalInbox)
                            .scope(IdempotencyScope.global())
                            .transactional(new SpringRequestTransactions(
                                    new DataSourceTransactionManager(pool), pool, transactionalInbox))
                            .build()));
            tomcat.start();
            try {
                String base = "http://127.0.0.1:" + connector.getLocalPort();
                List<String> variants = List.of(
                        "bare",
                        "caffeine",
                        "postgres",
                        "postgres-tx",
                        "redis",
                        "caffeine-replay",
                        "postgres-replay",
                        "postgres-tx-replay",
                        "redis-replay");
                Map<String, Rounds> results = new LinkedHashMap<>();
                variants.forEach(v -> results.put(v, new Rounds()));
                // A warm-up of every variant (JIT, pools, connections), not reported.
                for (String variant : variants) {
                    measure(base, variant, clients, Math.max(1, seconds / 2), run + "-warm");
                }
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < variants.size(); k++) {
                        String variant = variants.get((k + round) % variants.size());
                        double[] figures = measure(base, variant, clients, seconds, run + "-" + round);
                        Rounds r = results.get(variant);
                        r.perSecond().add(figures[0]);
                        r.p50Micros().add(figures[1]);
                        r.p99Micros().add(figures[2]);
                        System.err.printf(
                                "round %d %-16s %,8.0f req/s  p50 %,6.0f us  p99 %,7.0f us%n",
                                round + 1, variant, figures[0], figures[1], figures[2]);
                    }
                }
                print(args, seconds, rounds, clients, results);
            } finally {
                // The stores first: Redis's connection was opened on a request thread, under the web
                // application's class loader, which a stopped Tomcat no longer serves.
                for (InboxStore store : stores.values()) {
                    store.close();
                }
                tomcat.stop();
                tomcat.destroy();
            }
        }
    }

    private static void filter(Context context, String store, Filter filter) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(store);
        definition.setFilter(filter);
        context.addFilterDef(definition);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName(store);
        mapping.addURLPattern("/" + store + "/*");
        context.addFilterMap(mapping);
    }

    /**
     * {@code clients} threads sending {@code variant}'s requests for {@code seconds}: requests per
     * second, p50 and p99 latency in microseconds.
     */
    private static double[] measure(String base, String variant, int clients, int seconds, String run)
            throws Exception {
        boolean replay = variant.endsWith("-replay");
        String route = base + "/" + variant.replace("-replay", "") + "/payments";
        Recorder latencies = new Recorder(3);
        AtomicLong done = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                String fixedKey = run + "-" + variant + "-" + c;
                futures.add(threads.submit(() -> {
                    long n = 0;
                    if (replay) {
                        send(route, fixedKey, 201); // the first, kept: every later one replays it
                    }
                    while (System.nanoTime() - end < 0) {
                        String key = replay ? fixedKey : fixedKey + "-" + n++;
                        long start = System.nanoTime();
                        send(route, key, 201);
                        latencies.recordValue((System.nanoTime() - start) / 1_000);
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            long started = System.nanoTime();
            for (Future<?> future : futures) {
                future.get();
            }
            double elapsed = (System.nanoTime() - started) / 1e9;
            Histogram histogram = latencies.getIntervalHistogram();
            return new double[] {
                done.get() / elapsed, histogram.getValueAtPercentile(50), histogram.getValueAtPercentile(99)
            };
        } finally {
            threads.shutdownNow();
        }
    }

    private static void send(String route, String key, int expected) throws IOException {
        HttpURLConnection connection =
                (HttpURLConnection) URI.create(route).toURL().openConnection();
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        connection.setFixedLengthStreamingMode(BODY.length);
        connection.setRequestProperty("Content-Type", "application/json");
        connection.setRequestProperty(IdempotentRequests.HEADER, key);
        try (OutputStream out = connection.getOutputStream()) {
            out.write(BODY);
        }
        int status = connection.getResponseCode();
        byte[] body;
        try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
            body = in == null ? new byte[0] : in.readAllBytes(); // read whole: the connection is kept
        }
        if (status != expected) {
            throw new IllegalStateException(
                    route + " answered " + status + ": " + new String(body, StandardCharsets.UTF_8));
        }
    }

    private static void print(
            Map<String, String> args, int seconds, int rounds, int clients, Map<String, Rounds> results)
            throws IOException {
        Map<String, Object> out = new LinkedHashMap<>();
        StringBuilder command = new StringBuilder("HttpThroughput");
        args.forEach((k, v) -> command.append(" --").append(k).append(' ').append(v));
        out.put("command", command.toString());
        out.put("finished", Instant.now().toString());
        out.put("java", Runtime.version().toString());
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("secondsPerRound", seconds);
        out.put("rounds", rounds);
        out.put("clients", clients);
        out.put(
                "what",
                "POST of a 58-byte JSON body to one servlet route in an embedded Tomcat; bare: no filter;"
                        + " <store>: the Idempotency-Key filter, each request a new key (postgres-tx: in"
                        + " transactional mode, the claim and the kept response in one transaction of the request);"
                        + " <store>-replay: each"
                        + " request a repeat of a finished one. Medians of interleaved rounds, with the"
                        + " lowest and highest; the client threads run in the same JVM over loopback.");
        Rounds bare = results.get("bare");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, Rounds> entry : results.entrySet()) {
            Rounds r = entry.getValue();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("variant", entry.getKey());
            row.put("requestsPerSecond", Math.round(Spread.median(r.perSecond())));
            row.put("lowest", Math.round(Collections.min(r.perSecond())));
            row.put("highest", Math.round(Collections.max(r.perSecond())));
            row.put("p50Micros", Math.round(Spread.median(r.p50Micros())));
            row.put("p99Micros", Math.round(Spread.median(r.p99Micros())));
            row.put("rounds", r.perSecond().stream().map(Math::round).toList());
            if (r != bare) {
                double ratio = Spread.median(r.perSecond()) / Spread.median(bare.perSecond());
                row.put("ofBare", Math.round(ratio * 100) / 100.0);
                row.put(
                        "verdict",
                        Spread.verdict(
                                r.perSecond(),
                                bare.perSecond(),
                                "faster than bare, outside the spread",
                                "slower than bare, outside the spread"));
            }
            rows.add(row);
        }
        out.put("rows", rows);
        System.out.println(
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    }

    private static int positive(String value, String name) {
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, not " + value, e);
        }
        if (parsed < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1, not " + value);
        }
        return parsed;
    }
}
