package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * MySQL/MariaDB: each store operation beside the raw Connector/J statement of the seed, {@code
 * INSERT IGNORE} on a table of the same shape, in one run.
 *
 * <ul>
 *   <li>{@code claim_*}: a lease claim of a fresh key vs {@code INSERT IGNORE}.
 *   <li>{@code duplicate_*}: a claim of a COMPLETED key vs {@code INSERT IGNORE} of an existing key.
 *   <li>{@code transactional_*}: the transactional claim + commit vs {@code INSERT IGNORE} + commit.
 *   <li>{@code claimComplete_*}: claim + complete vs {@code INSERT IGNORE} + owner-fenced {@code
 *       UPDATE} (lease mode's two round trips).
 *   <li>{@code contended_*}: all threads claim one key (meaningful with {@code -t 4}).
 *   <li>{@code claimAll100_*}: 100 fresh keys (one multi-row insert and one read-back) vs one
 *       100-row {@code INSERT IGNORE}; ops/s × 100 = keys/s.
 * </ul>
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar MysqlClaimBenchmark -t 1 -rf json -rff benchmarks/results/mysql-claims-t1.json
 * java -jar benchmarks/target/benchmarks.jar MysqlClaimBenchmark -t 4 -rf json -rff benchmarks/results/mysql-claims-t4.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class MysqlClaimBenchmark extends StoreClaimBenchmark {

    static final String URL = System.getProperty(
            "inbox.bench.mysql",
            "jdbc:mysql://127.0.0.1:3306/test?user=root&password=&sslMode=DISABLED&allowPublicKeyRetrieval=true");

    private static final String TABLE = "inbox_bench";
    private static final String RAW = "inbox_bench_raw";
    private static final String RAW_ROW =
            "(?, ?, ?, 0, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, NULL)";

    HikariDataSource pool;
    MysqlInboxStore mysql;

    /** A pool of {@code size} connections on {@link #URL}. */
    static HikariDataSource pool(int size, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        pool = pool(8, "bench-mysql");
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE + ", " + RAW + ", " + TABLE + "_sequence");
        }
        mysql = MysqlInboxStore.builder(pool)
                .table(TABLE)
                .sequenceTable(TABLE + "_sequence")
                .build();
        mysql.createSchemaIfMissing();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + RAW + " LIKE " + TABLE);
        }
        prepare(mysql);
        rawInsert(List.of(DUPLICATE_ID));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        pool.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private int rawInsert(List<String> ids) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return rawInsert(c, ids, bytes(OwnerToken.random().value()), LEASE);
        }
    }

    /** One {@code INSERT IGNORE} of {@code ids}, held by {@code owner} for {@code expiry}, on {@code c}. */
    private int rawInsert(Connection c, List<String> ids, byte[] owner, Duration expiry) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT IGNORE INTO " + RAW
                + " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint) VALUES " + RAW_ROW);
        for (int i = 1; i < ids.size(); i++) {
            sql.append(", ").append(RAW_ROW);
        }
        try (PreparedStatement s = c.prepareStatement(sql.toString())) {
            int p = 1;
            for (String id : ids) {
                s.setBytes(p++, bytes(consumer));
                s.setBytes(p++, bytes(id));
                s.setBytes(p++, owner);
                s.setLong(p++, expiry.toNanos() / 1_000);
            }
            return s.executeUpdate();
        }
    }

    @Benchmark
    public int claim_raw() throws SQLException {
        return rawInsert(List.of(freshId()));
    }

    @Benchmark
    public int duplicate_raw() throws SQLException {
        return rawInsert(List.of(DUPLICATE_ID));
    }

    @Benchmark
    public int contended_raw() throws SQLException {
        return rawInsert(List.of(HOT_ID));
    }

    @Benchmark
    public int claimComplete_raw() throws SQLException {
        String id = freshId();
        byte[] owner = bytes(OwnerToken.random().value());
        try (Connection c = pool.getConnection()) {
            rawInsert(c, List.of(id), owner, LEASE);
            try (PreparedStatement s = c.prepareStatement("UPDATE " + RAW
                    + " SET state = 1, expires_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,"
                    + " purge_after = UTC_TIMESTAMP(6) + INTERVAL 1 HOUR"
                    + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ?")) {
                s.setLong(1, RETENTION.toNanos() / 1_000);
                s.setBytes(2, bytes(consumer));
                s.setBytes(3, bytes(id));
                s.setBytes(4, owner);
                return s.executeUpdate();
            }
        }
    }

    @Benchmark
    public ClaimResult transactional_store() throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            ClaimResult result = mysql.claimInTransaction(c, InboxKey.of(consumer, freshId()), RETENTION, null);
            c.commit();
            c.setAutoCommit(true);
            return result;
        }
    }

    @Benchmark
    public int transactional_raw() throws SQLException {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            int rows =
                    rawInsert(c, List.of(freshId()), bytes(OwnerToken.random().value()), RETENTION);
            c.commit();
            c.setAutoCommit(true);
            return rows;
        }
    }

    @Benchmark
    public int claimAll100_raw() throws SQLException {
        List<String> ids = new ArrayList<>(100);
        for (int i = 0; i < 100; i++) {
            ids.add(freshId());
        }
        return rawInsert(ids);
    }
}
