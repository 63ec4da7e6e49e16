package dev.inbox.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the PostgreSQL server the tests use: {@code INBOX_TEST_POSTGRES_URL} (a JDBC URL with user
 * and password) when set, else a server on 127.0.0.1:5432 (database {@code test}, user {@code
 * postgres}, trust auth). Without one, tests are skipped with a message saying how to provide it —
 * except under {@code CI=true}, where a missing server fails the build.
 */
final class PostgresTestDatabase {

    static final String ENV = "INBOX_TEST_POSTGRES_URL";
    static final String LOCAL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&connectTimeout=3";

    private static String url;
    private static String unavailable;

    private PostgresTestDatabase() {}

    /** The JDBC URL of the server, or a skip (or failure under CI) when there is none. */
    static synchronized String url() {
        if (url == null && unavailable == null) {
            resolve();
        }
        if (url == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true and no PostgreSQL server: " + unavailable);
            }
            Assumptions.abort("No PostgreSQL server: " + unavailable);
        }
        return url;
    }

    /** A pool on the server, in auto-commit mode unless told otherwise. */
    static HikariDataSource pool(int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(size);
        config.setAutoCommit(autoCommit);
        config.setPoolName("inbox-test-" + (autoCommit ? "auto" : "manual"));
        return new HikariDataSource(config);
    }

    /** Runs DDL or cleanup on a connection of its own. */
    static void execute(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    private static void resolve() {
        String candidate = System.getenv(ENV);
        String source = candidate != null ? ENV : "the local server at 127.0.0.1:5432";
        if (candidate == null) {
            candidate = LOCAL;
        }
        try (Connection ignored = DriverManager.getConnection(candidate, new Properties())) {
            url = candidate;
        } catch (SQLException e) {
            unavailable = source + " is not reachable (" + e.getMessage() + "). Start PostgreSQL there, or set " + ENV
                    + " to a JDBC URL such as jdbc:postgresql://host:5432/db?user=u&password=p";
        }
    }
}
