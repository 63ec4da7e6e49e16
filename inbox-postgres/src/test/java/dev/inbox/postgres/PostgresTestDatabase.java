package dev.inbox.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.TestEndpoint;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.regex.Pattern;
import org.postgresql.Driver;

/**
 * The PostgreSQL server the tests use: {@code INBOX_TEST_POSTGRES_URL} (a JDBC URL with user and
 * password) when set, else 127.0.0.1:5432 (database {@code test}, user {@code postgres}, trust
 * auth); see {@link TestEndpoint} for what happens when neither answers.
 */
final class PostgresTestDatabase {

    private PostgresTestDatabase() {}

    static String url() {
        return TestEndpoint.resolve(
                "PostgreSQL",
                "INBOX_TEST_POSTGRES_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&connectTimeout=3",
                "jdbc:postgresql://host:5432/db?user=u&password=p",
                url -> DriverManager.getConnection(url).close());
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

    /** The server's address, from the URL. */
    static InetSocketAddress server() throws SQLException {
        Properties parsed = Driver.parseURL(url(), null);
        if (parsed == null) {
            throw new IllegalStateException("not a PostgreSQL JDBC URL: " + url());
        }
        return new InetSocketAddress(
                parsed.getProperty("PGHOST").split(",")[0],
                Integer.parseInt(parsed.getProperty("PGPORT").split(",")[0]));
    }

    /**
     * A small auto-commit pool on the same database reached at {@code host:port} (a fault proxy),
     * with connect and socket timeouts of {@code timeout}, that starts without a server.
     */
    static HikariDataSource poolVia(String host, int port, Duration timeout) throws SQLException {
        InetSocketAddress server = server();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url().replaceFirst(
                        "//" + Pattern.quote(server.getHostString()) + "(:" + server.getPort() + ")?/",
                        "//" + host + ":" + port + "/"));
        int seconds = (int) Math.max(1, timeout.toSeconds());
        config.addDataSourceProperty("connectTimeout", Integer.toString(seconds));
        config.addDataSourceProperty("socketTimeout", Integer.toString(seconds));
        config.addDataSourceProperty("loginTimeout", Integer.toString(seconds));
        config.setConnectionTimeout(Math.max(250, timeout.toMillis()));
        config.setInitializationFailTimeout(-1);
        config.setMaximumPoolSize(2);
        config.setPoolName("inbox-test-via-" + port);
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
}
