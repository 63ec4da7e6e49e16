package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.postgres.PostgresInboxStore;
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
 * PostgreSQL purge of 1,000,000 expired rows: the store's bounded batches (10,000 or 50,000 rows
 * per statement, oldest first by the {@code purge_after} index) vs one raw {@code DELETE}. Each
 * invocation refills the table, so each is a single shot.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar PostgresPurgeBenchmark -rf json -rff pg-purge.json
 * }</pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(1)
@State(Scope.Benchmark)
public class PostgresPurgeBenchmark {

    @Param({"1000000"})
    int rows;

    /** Rows per purge statement: the store's default, and a larger batch for comparison. */
    @Param({"10000", "50000"})
    int batchSize;

    HikariDataSource pool;
    PostgresInboxStore store;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        pool = PostgresBench.pool(2);
        PostgresBench.recreate(pool);
        store = PostgresInboxStore.builder(pool)
                .table(PostgresBench.STORE_TABLE)
                .grace(Duration.ZERO)
                .purgeBatchSize(batchSize)
                .build();
    }

    @Setup(Level.Invocation)
    public void fill() throws SQLException {
        for (String table : new String[] {PostgresBench.STORE_TABLE, PostgresBench.RAW_TABLE}) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("TRUNCATE " + table);
                s.execute("INSERT INTO " + table + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                        + " SELECT 'purge', 'k-' || g, 'owner', 1, t, t FROM (SELECT g, clock_timestamp()"
                        + " - interval '1 hour' + g * interval '1 millisecond' AS t"
                        + " FROM generate_series(1, " + rows + ") AS g) AS rows");
                s.execute("VACUUM ANALYZE " + table);
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
            return s.executeUpdate(
                    "DELETE FROM " + PostgresBench.RAW_TABLE + " WHERE purge_after <= clock_timestamp()");
        }
    }
}
