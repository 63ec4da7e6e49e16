package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * PostgreSQL: each store operation beside the raw pgjdbc statement it replaces, in one run.
 *
 * <ul>
 *   <li>{@code claim_*}: a lease claim of a fresh key vs {@code INSERT … ON CONFLICT DO NOTHING}.
 *   <li>{@code duplicate_*}: a claim of a COMPLETED key vs the same insert hitting an existing row.
 *   <li>{@code claimComplete_*}: claim + complete vs insert + owner-fenced update (lease mode's
 *       two round trips).
 *   <li>{@code transactional_*}: the transactional claim + commit vs insert + commit.
 *   <li>{@code claimAll100_*}: 100 fresh keys in one statement vs an {@code unnest} insert with
 *       {@code RETURNING}; ops/s × 100 = keys/s.
 *   <li>{@code contended_*}: all threads claim one key (meaningful with {@code -t 4}).
 * </ul>
 *
 * <pre>{@code
 * ./mvnw -q -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar PostgresClaimBenchmark -t 1 -rf json -rff pg-t1.json
 * java -jar benchmarks/target/benchmarks.jar PostgresClaimBenchmark -t 4 -rf json -rff pg-t4.json
 * }</pre>
 */
@BenchmarkMode({Mode.Throughput})
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class PostgresClaimBenchmark extends StoreClaimBenchmark {

    private static final String RAW_INSERT = "INSERT INTO " + PostgresBench.RAW_TABLE
            + " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint)"
            + " VALUES (?, ?, ?, 0, clock_timestamp() + ? * interval '1 microsecond',"
            + " clock_timestamp() + interval '1 hour', ?)"
            + " ON CONFLICT (consumer, dedup_key) DO NOTHING";
    private static final String RAW_COMPLETE = "UPDATE " + PostgresBench.RAW_TABLE
            + " SET state = 1, expires_at = clock_timestamp() + ? * interval '1 microsecond',"
            + " purge_after = clock_timestamp() + interval '1 hour'"
            + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ?";
    private static final String RAW_BATCH = "INSERT INTO " + PostgresBench.RAW_TABLE
            + " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint)"
            + " SELECT ?, k, ?, 0, clock_timestamp() + ? * interval '1 microsecond',"
            + " clock_timestamp() + interval '1 hour', NULL FROM unnest(?::text[]) AS k"
            + " ON CONFLICT (consumer, dedup_key) DO NOTHING RETURNING dedup_key";

    HikariDataSource pool;
    PostgresInboxStore postgres;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        pool = PostgresBench.pool(8);
        PostgresBench.recreate(pool);
        postgres = PostgresBench.store(pool);
        prepare(postgres);
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
            bindInsert(s, DUPLICATE_ID, OwnerToken.random().value());
            s.executeUpdate();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        pool.close();
    }

    private void bindInsert(PreparedStatement s, String id, String owner) throws SQLException {
        s.setString(1, consumer);
        s.setString(2, id);
        s.setString(3, owner);
        s.setLong(4, LEASE.toNanos() / 1_000);
        s.setString(5, null);
    }

    // ------------------------------------------------------------------------------ single claim

    @Benchmark
    public int claim_raw() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
            bindInsert(s, freshId(), OwnerToken.random().value());
            return s.executeUpdate();
        }
    }

    // -------------------------------------------------------------------------------- duplicates

    @Benchmark
    public int duplicate_raw() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
            bindInsert(s, DUPLICATE_ID, OwnerToken.random().value());
            return s.executeUpdate();
        }
    }

    // ------------------------------------------------------------------------------- contention

    @Benchmark
    public int contended_raw() throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
            bindInsert(s, HOT_ID, OwnerToken.random().value());
            return s.executeUpdate();
        }
    }

    // ------------------------------------------------------------------------ claim and complete

    @Benchmark
    public int claimComplete_raw() throws SQLException {
        String id = freshId();
        String owner = OwnerToken.random().value();
        try (Connection c = pool.getConnection()) {
            try (PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
                bindInsert(s, id, owner);
                s.executeUpdate();
            }
            try (PreparedStatement s = c.prepareStatement(RAW_COMPLETE)) {
                s.setLong(1, RETENTION.toNanos() / 1_000);
                s.setString(2, consumer);
                s.setString(3, id);
                s.setString(4, owner);
                return s.executeUpdate();
            }
        }
    }

    // ----------------------------------------------------------------------------- transactional

    @Benchmark
    public ClaimResult transactional_store() throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            ClaimResult result = postgres.claimInTransaction(c, InboxKey.of(consumer, freshId()), RETENTION, null);
            c.commit();
            c.setAutoCommit(true);
            return result;
        }
    }

    @Benchmark
    public int transactional_raw() throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            int rows;
            try (PreparedStatement s = c.prepareStatement(RAW_INSERT)) {
                bindInsert(s, freshId(), OwnerToken.random().value());
                rows = s.executeUpdate();
            }
            c.commit();
            c.setAutoCommit(true);
            return rows;
        }
    }

    // ---------------------------------------------------------------------------------- batches

    @Benchmark
    public int claimAll100_raw() throws SQLException {
        String[] ids = new String[100];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = freshId();
        }
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(RAW_BATCH)) {
            Array array = c.createArrayOf("text", ids);
            s.setString(1, consumer);
            s.setString(2, OwnerToken.random().value());
            s.setLong(3, LEASE.toNanos() / 1_000);
            s.setArray(4, array);
            int taken = 0;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    taken++;
                }
            }
            return taken;
        }
    }
}
