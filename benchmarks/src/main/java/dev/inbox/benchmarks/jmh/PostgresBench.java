package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.postgres.PostgresInboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** The database and tables the PostgreSQL benchmarks share. */
final class PostgresBench {

    /** The server, with {@code synchronous_commit=off} for every connection (as stated in the results). */
    static final String URL = System.getProperty(
            "inbox.bench.postgres",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&options=-c%20synchronous_commit%3Doff");

    static final String STORE_TABLE = "inbox_bench";
    static final String RAW_TABLE = "inbox_bench_raw";

    private PostgresBench() {}

    static HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(URL);
        config.setMaximumPoolSize(size);
        config.setPoolName("bench");
        return new HikariDataSource(config);
    }

    static PostgresInboxStore store(HikariDataSource pool) {
        return PostgresInboxStore.builder(pool)
                .table(STORE_TABLE)
                .sequenceTable(STORE_TABLE + "_sequence")
                .grace(Duration.ofHours(1))
                .build();
    }

    /** Fresh tables: the store's, and a raw one of the same shape for the baseline. */
    static void recreate(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + STORE_TABLE + ", " + RAW_TABLE + ", " + STORE_TABLE + "_sequence");
        }
        store(pool).createSchemaIfMissing();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + RAW_TABLE + " (LIKE " + STORE_TABLE + " INCLUDING ALL)");
        }
    }
}
