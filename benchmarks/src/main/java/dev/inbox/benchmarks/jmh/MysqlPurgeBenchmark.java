package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.mysql.MysqlInboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * MySQL/MariaDB purge of 1,000,000 expired rows: the store's bounded batches ({@code DELETE …
 * ORDER BY purge_after LIMIT n}, each its own transaction, until one comes back short) vs one raw
 * {@code DELETE}. Each invocation refills both tables, so each is a single shot.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar MysqlPurgeBenchmark -rf json -rff benchmarks/results/mysql-purge.json
 * }</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(1)
@State(Scope.Benchmark)
public class MysqlPurgeBenchmark {

    private static final String TABLE = "inbox_bench_purge";
    private static final String RAW = "inbox_bench_purge_raw";

    @Param({"1000000"})
    int rows;

    /** Rows per purge statement: the store's default, and a larger batch for comparison. */
    @Param({"10000", "50000"})
    int batchSize;

    HikariDataSource pool;
    MysqlInboxStore store;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        pool = MysqlClaimBenchmark.pool(2, "bench-mysql-purge");
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE + ", " + RAW + ", " + TABLE + "_sequence, inbox_bench_digits");
            s.execute("CREATE TABLE inbox_bench_digits (d INT PRIMARY KEY)");
            s.execute("INSERT INTO inbox_bench_digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)");
        }
        store = MysqlInboxStore.builder(pool)
                .table(TABLE)
                .sequenceTable(TABLE + "_sequence")
                .grace(Duration.ZERO)
                .purgeBatchSize(batchSize)
                .build();
        store.createSchemaIfMissing();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + RAW + " LIKE " + TABLE);
        }
    }

    @Setup(Level.Invocation)
    public void fill() throws SQLException {
        if (rows > 1_000_000) {
            throw new IllegalArgumentException("the fill makes at most 1,000,000 rows");
        }
        String n = "(a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d)";
        for (String table : new String[] {TABLE, RAW}) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("TRUNCATE TABLE " + table);
                s.execute("INSERT INTO " + table + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                        + " SELECT 'purge', CONCAT('k-', " + n + "), 'owner', 1,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL " + n + " MICROSECOND,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL " + n + " MICROSECOND"
                        + " FROM inbox_bench_digits a, inbox_bench_digits b, inbox_bench_digits c,"
                        + " inbox_bench_digits e, inbox_bench_digits f, inbox_bench_digits g"
                        + " WHERE " + n + " < " + rows);
                s.execute("ANALYZE TABLE " + table);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        pool.close();
    }

    @Benchmark
    public long purge_store() {
        return store.purge();
    }

    @Benchmark
    public int purge_raw() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            return s.executeUpdate("DELETE FROM " + RAW + " WHERE purge_after <= UTC_TIMESTAMP(6)");
        }
    }
}
