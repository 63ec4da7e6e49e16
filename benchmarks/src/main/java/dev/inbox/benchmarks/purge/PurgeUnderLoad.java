package dev.inbox.benchmarks.purge;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The store's purge of a table of {@code --rows} records (the older half expired, the newer half
 * live, as a table in use looks) while {@code --threads} consumers claim new events at full speed,
 * beside one raw {@code DELETE} of the same expired rows from an idle copy of the table and the
 * store's own purge of another idle copy (the same statements without the claims' load).
 *
 * <p>Reported: the claims' latency (p50, p99, p99.9, max) and rate in a window before the purge and
 * while it runs; the purge's rows, time, rows per second, statements and longest statement, under
 * load and idle (on MySQL/MariaDB also how many InnoDB buffer pool pages each purge read from
 * disk); the raw {@code DELETE}'s rows and time; and the ratios the targets are written against. The claims and the purge share the machine: on two cores the purge also takes CPU
 * from the claims, which the idle purge separates out.
 *
 * <pre>{@code
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.purge.PurgeUnderLoad \
 *     --store postgres > benchmarks/results/purge-under-load-postgres.json
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.purge.PurgeUnderLoad \
 *     --store mysql > benchmarks/results/purge-under-load-mysql.json
 * }</pre>
 *
 * <p>Options: {@code --rows 10000000}, {@code --threads 4}, {@code --warmup-seconds 5}, {@code
 * --baseline-seconds 20}, {@code --batch 10000} (rows per purge statement: the stores' default),
 * {@code --nice-ratio 0} (the store's {@code purgeNiceRatio}: the rest after each purge statement,
 * as a multiple of its time; it applies to both store purges, idle and under load).
 * Servers: {@code -Dinbox.bench.postgres=<jdbc url>}, {@code -Dinbox.bench.mysql=<jdbc url>}, as
 * for the JMH benchmarks.
 */
public final class PurgeUnderLoad {

    private static final String TABLE = "inbox_bench_purge_load";
    private static final String RAW = "inbox_bench_purge_load_raw";
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final List<String> OPTIONS =
            List.of("store", "rows", "threads", "warmup-seconds", "baseline-seconds", "batch", "nice-ratio");

    private final Backend backend;
    private final int rows;
    private final int threads;
    private final Duration warmup;
    private final Duration baseline;
    private final int batch;
    private final double niceRatio;

    private PurgeUnderLoad(
            Backend backend, int rows, int threads, Duration warmup, Duration baseline, int batch, double niceRatio) {
        if (rows < 2 || threads < 1 || batch < 1) {
            throw new IllegalArgumentException("--rows must be at least 2, --threads and --batch at least 1");
        }
        this.backend = backend;
        this.rows = rows;
        this.threads = threads;
        this.warmup = warmup;
        this.baseline = baseline;
        this.batch = batch;
        this.niceRatio = niceRatio;
    }

    public static void main(String[] argv) throws Exception {
        System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report(argv)));
    }

    /**
     * Runs with the options of {@code argv} and returns the report {@link #main} prints.
     *
     * @throws IllegalArgumentException if an option is unknown or has no value
     */
    public static Map<String, Object> report(String... argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        if (argv.length % 2 != 0) {
            throw new IllegalArgumentException("an option without its value: " + argv[argv.length - 1]);
        }
        for (String option : args.keySet()) {
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown option --" + option + "; the options are " + OPTIONS);
            }
        }
        Backend backend = Backend.of(args.getOrDefault("store", "postgres"));
        PurgeUnderLoad run = new PurgeUnderLoad(
                backend,
                Integer.parseInt(args.getOrDefault("rows", "10000000")),
                Integer.parseInt(args.getOrDefault("threads", "4")),
                Duration.ofSeconds(Long.parseLong(args.getOrDefault("warmup-seconds", "5"))),
                Duration.ofSeconds(Long.parseLong(args.getOrDefault("baseline-seconds", "20"))),
                Integer.parseInt(args.getOrDefault("batch", "10000")),
                Double.parseDouble(args.getOrDefault("nice-ratio", "0")));
        return run.run();
    }

    /** What differs between the two SQL stores: the server, the fill, the raw statement. */
    private enum Backend {
        POSTGRES(System.getProperty(
                "inbox.bench.postgres",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&options=-c%20synchronous_commit%3Doff")),
        MYSQL(System.getProperty(
                "inbox.bench.mysql",
                "jdbc:mysql://127.0.0.1:3306/test?user=root&password=&sslMode=DISABLED&allowPublicKeyRetrieval=true"));

        final String url;

        Backend(String url) {
            this.url = url;
        }

        static Backend of(String name) {
            return switch (name) {
                case "postgres" -> POSTGRES;
                case "mysql" -> MYSQL;
                default -> throw new IllegalArgumentException("--store is postgres or mysql, not " + name);
            };
        }

        InboxStore store(DataSource pool, String table, int batch, double niceRatio) {
            return switch (this) {
                case POSTGRES ->
                    PostgresInboxStore.builder(pool)
                            .table(table)
                            .sequenceTable(TABLE + "_sequence")
                            .grace(Duration.ZERO)
                            .purgeBatchSize(batch)
                            .purgeNiceRatio(niceRatio)
                            .build();
                case MYSQL ->
                    MysqlInboxStore.builder(pool)
                            .table(table)
                            .sequenceTable(TABLE + "_sequence")
                            .grace(Duration.ZERO)
                            .purgeBatchSize(batch)
                            .purgeNiceRatio(niceRatio)
                            .build();
            };
        }

        void createSchema(InboxStore store) {
            if (store instanceof PostgresInboxStore postgres) {
                postgres.createSchemaIfMissing();
            } else {
                ((MysqlInboxStore) store).createSchemaIfMissing();
            }
        }

        /**
         * Rows 1 … {@code rows} of one consumer, completed, in insertion order: the first half past
         * their purge instant (spread over the day before), the second half live (the day after).
         */
        void fill(Statement s, String table, int rows) throws SQLException {
            int half = rows / 2;
            if (this == POSTGRES) {
                s.execute("INSERT INTO " + table + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                        + " SELECT 'old', 'k-' || g, 'owner', 1, t, t FROM (SELECT g, CASE WHEN g <= " + half
                        + " THEN now() - interval '1 day' + g * (interval '23 hours' / " + half + ")"
                        + " ELSE now() + interval '1 day' + g * interval '1 millisecond' END AS t"
                        + " FROM generate_series(1, " + rows + ") AS g) AS filled");
                s.execute("VACUUM ANALYZE " + table);
                return;
            }
            if (rows > 10_000_000) {
                throw new IllegalArgumentException("the MySQL fill makes at most 10,000,000 rows");
            }
            s.execute("DROP TABLE IF EXISTS inbox_bench_digits");
            s.execute("CREATE TABLE inbox_bench_digits (d INT PRIMARY KEY)");
            s.execute("INSERT INTO inbox_bench_digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)");
            String n = "(1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d + 1000000 * h.d)";
            s.execute("INSERT INTO " + table + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                    + " SELECT 'old', CONCAT('k-', n), 'owner', 1, t, t FROM (SELECT " + n + " AS n, CASE WHEN "
                    + n + " <= " + half + " THEN UTC_TIMESTAMP(6) - INTERVAL 1 DAY + INTERVAL (" + n
                    + " * 82800000000 DIV "
                    + half + ") MICROSECOND ELSE UTC_TIMESTAMP(6) + INTERVAL 1 DAY + INTERVAL (" + n
                    + " * 1000) MICROSECOND END AS t FROM inbox_bench_digits a, inbox_bench_digits b, inbox_bench_digits c,"
                    + " inbox_bench_digits e, inbox_bench_digits f, inbox_bench_digits g, inbox_bench_digits h"
                    + " WHERE " + n + " <= " + rows + ") AS filled");
            s.execute("ANALYZE TABLE " + table);
        }

        void copy(Statement s, String from, String to) throws SQLException {
            if (this == POSTGRES) {
                s.execute("CREATE TABLE " + to + " (LIKE " + from + " INCLUDING ALL)");
                s.execute("INSERT INTO " + to + " SELECT * FROM " + from);
                s.execute("VACUUM ANALYZE " + to);
            } else {
                s.execute("CREATE TABLE " + to + " LIKE " + from);
                s.execute("INSERT INTO " + to + " SELECT * FROM " + from);
                s.execute("ANALYZE TABLE " + to);
            }
        }

        /**
         * MariaDB/MySQL: the server's {@code Innodb_buffer_pool_reads} (pages read from disk because
         * the buffer pool did not hold them) and {@code Innodb_buffer_pool_read_requests}; PostgreSQL:
         * none (its statistics reach other sessions up to seconds late).
         */
        Map<String, Long> bufferPool(DataSource pool) throws SQLException {
            Map<String, Long> counters = new LinkedHashMap<>();
            if (this == POSTGRES) {
                return counters;
            }
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement();
                    java.sql.ResultSet rows = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN"
                            + " ('Innodb_buffer_pool_reads', 'Innodb_buffer_pool_read_requests')")) {
                while (rows.next()) {
                    counters.put(
                            rows.getString(1).equals("Innodb_buffer_pool_reads") ? "diskReads" : "readRequests",
                            rows.getLong(2));
                }
            }
            return counters;
        }

        String rawDelete(String table) {
            return "DELETE FROM " + table + " WHERE purge_after <= "
                    + (this == POSTGRES ? "clock_timestamp()" : "UTC_TIMESTAMP(6)");
        }
    }

    private Map<String, Object> run() throws Exception {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("store", backend.name().toLowerCase(java.util.Locale.ROOT));
        report.put("rows", rows);
        report.put("expiredRows", rows / 2);
        report.put("threads", threads);
        report.put("purgeBatch", batch);
        report.put("purgeNiceRatio", niceRatio);
        try (HikariDataSource pool = pool(threads + 1, "purge-load")) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + TABLE + ", " + RAW + ", " + TABLE + "_sequence");
            }
            try (InboxStore schema = backend.store(pool, TABLE, batch, 0)) {
                backend.createSchema(schema);
            }
            long fillStart = System.nanoTime();
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                backend.fill(s, TABLE, rows);
                report.put("fillSeconds", seconds(System.nanoTime() - fillStart));
                backend.copy(s, TABLE, RAW);
                // The raw baseline: one DELETE of the expired half from the idle copy.
                long start = System.nanoTime();
                int deleted = s.executeUpdate(backend.rawDelete(RAW));
                long took = System.nanoTime() - start;
                report.put("rawDelete", Map.of("rows", deleted, "seconds", seconds(took), "idle", true));
                s.execute("DROP TABLE " + RAW);
                // The store's purge of another idle copy: the same batches, without the claims' load.
                backend.copy(s, TABLE, RAW);
            }
            List<Long> idleStatements = new CopyOnWriteArrayList<>();
            try (HikariDataSource purgePool = pool(1, "purge-idle");
                    InboxStore purging = backend.store(timed(purgePool, idleStatements), RAW, batch, niceRatio)) {
                Map<String, Long> pages = backend.bufferPool(pool);
                long start = System.nanoTime();
                long purged = purging.purge();
                report.put("purgeIdle", purgeSummary(purged, System.nanoTime() - start, idleStatements));
                putBufferPool(report, "purgeIdle", pages, backend.bufferPool(pool));
            }
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + RAW);
            }
            report.putAll(underLoad(pool));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> purge = (Map<String, Object>) report.get("purge");
        @SuppressWarnings("unchecked")
        Map<String, Object> raw = (Map<String, Object>) report.get("rawDelete");
        @SuppressWarnings("unchecked")
        Map<String, Object> idle = (Map<String, Object>) report.get("purgeIdle");
        @SuppressWarnings("unchecked")
        Map<String, Object> before = (Map<String, Object>) report.get("claimsBefore");
        @SuppressWarnings("unchecked")
        Map<String, Object> during = (Map<String, Object>) report.get("claimsDuringPurge");
        report.put(
                "ratios",
                Map.of(
                        "purgeSecondsOverRawDelete",
                        round((double) purge.get("seconds") / (double) raw.get("seconds")),
                        "idlePurgeSecondsOverRawDelete",
                        round((double) idle.get("seconds") / (double) raw.get("seconds")),
                        "claimP99DuringOverBefore",
                        round((double) during.get("p99Micros") / (double) before.get("p99Micros")),
                        "claimP50DuringOverBefore",
                        round((double) during.get("p50Micros") / (double) before.get("p50Micros"))));
        return report;
    }

    /** Claims on {@link #threads} threads: a window without purge, then the purge on a connection of its own. */
    private Map<String, Object> underLoad(HikariDataSource pool) throws Exception {
        Recorder latencies = new Recorder(3);
        AtomicLong claims = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> consumers = new ArrayList<>();
        InboxStore store = backend.store(pool, TABLE, batch, 0);
        AtomicLong sequence = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            Thread consumer = new Thread(
                    () -> {
                        while (!Thread.currentThread().isInterrupted()) {
                            InboxKey key = InboxKey.of("new", "n-" + sequence.incrementAndGet());
                            long start = System.nanoTime();
                            try {
                                store.claim(ClaimRequest.of(key, OwnerToken.random(), LEASE));
                            } catch (RuntimeException e) {
                                if (!Thread.currentThread().isInterrupted()) {
                                    failure.compareAndSet(null, e);
                                }
                                return;
                            }
                            latencies.recordValue((System.nanoTime() - start) / 1_000);
                            claims.incrementAndGet();
                        }
                    },
                    "claims-" + t);
            consumers.add(consumer);
            consumer.start();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            Thread.sleep(warmup.toMillis());
            latencies.getIntervalHistogram(); // the warmup's claims are not reported
            long claimsAtStart = claims.get();
            long windowStart = System.nanoTime();
            Thread.sleep(baseline.toMillis());
            out.put(
                    "claimsBefore",
                    summary(
                            latencies.getIntervalHistogram(),
                            claims.get() - claimsAtStart,
                            System.nanoTime() - windowStart));

            // The purge, on its own pool whose connections are timed: one connection per statement.
            List<Long> statements = new CopyOnWriteArrayList<>();
            try (HikariDataSource purgePool = pool(1, "purge");
                    InboxStore purging = backend.store(timed(purgePool, statements), TABLE, batch, niceRatio)) {
                Map<String, Long> pages = backend.bufferPool(pool);
                long claimsAtPurge = claims.get();
                long start = System.nanoTime();
                long purged = purging.purge();
                long took = System.nanoTime() - start;
                out.put(
                        "claimsDuringPurge",
                        summary(latencies.getIntervalHistogram(), claims.get() - claimsAtPurge, took));
                out.put("purge", purgeSummary(purged, took, statements));
                putBufferPool(out, "purge", pages, backend.bufferPool(pool));
            }
        } finally {
            for (Thread consumer : consumers) {
                consumer.interrupt();
            }
            for (Thread consumer : consumers) {
                consumer.join(30_000);
            }
            store.close();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a claim failed during the run", failure.get());
        }
        return out;
    }

    private static Map<String, Object> purgeSummary(long purged, long nanos, List<Long> statements) {
        Map<String, Object> purge = new LinkedHashMap<>();
        purge.put("rows", purged);
        purge.put("seconds", seconds(nanos));
        purge.put("rowsPerSecond", Math.round(purged / (nanos / 1e9)));
        purge.put("statements", statements.size());
        long[] sorted = statements.stream().mapToLong(Long::longValue).sorted().toArray();
        long longest = sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        purge.put("longestStatementMillis", round(longest / 1e6));
        purge.put("longestStatementIndex", statements.indexOf(longest)); // 0: the first statement
        purge.put("meanStatementMillis", round(Arrays.stream(sorted).sum() / 1e6 / Math.max(1, sorted.length)));
        purge.put("p50StatementMillis", sorted.length == 0 ? 0 : round(sorted[sorted.length / 2] / 1e6));
        purge.put(
                "p99StatementMillis",
                sorted.length == 0 ? 0 : round(sorted[(int) Math.min(sorted.length - 1, sorted.length * 0.99)] / 1e6));
        return purge;
    }

    /** The buffer pool counters' growth over a purge (the claims' reads included under load), if any. */
    @SuppressWarnings("unchecked")
    private static void putBufferPool(
            Map<String, Object> report, String purge, Map<String, Long> before, Map<String, Long> after) {
        if (before.isEmpty()) {
            return;
        }
        Map<String, Object> grown = new LinkedHashMap<>();
        before.forEach((counter, value) -> grown.put(counter, after.get(counter) - value));
        ((Map<String, Object>) report.get(purge)).put("innodbBufferPool", grown);
    }

    private static Map<String, Object> summary(Histogram h, long count, long nanos) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("claims", count);
        m.put("claimsPerSecond", Math.round(count / (nanos / 1e9)));
        m.put("p50Micros", (double) h.getValueAtPercentile(50));
        m.put("p99Micros", (double) h.getValueAtPercentile(99));
        m.put("p999Micros", (double) h.getValueAtPercentile(99.9));
        m.put("maxMicros", (double) h.getMaxValue());
        return m;
    }

    /** {@code pool}, with each connection's time from taken to closed added to {@code took}. */
    private static DataSource timed(DataSource pool, List<Long> took) {
        return (DataSource) Proxy.newProxyInstance(
                PurgeUnderLoad.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(pool, method, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    long start = System.nanoTime();
                    return Proxy.newProxyInstance(
                            PurgeUnderLoad.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                                if (m.getName().equals("close")) {
                                    took.add(System.nanoTime() - start);
                                }
                                return invoke(connection, m, a);
                            });
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private HikariDataSource pool(int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(backend.url);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    private static double seconds(long nanos) {
        return round(nanos / 1e9);
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
