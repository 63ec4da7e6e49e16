package dev.inbox.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.TestServers;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** The PostgreSQL server the tests use, as {@link TestServers#postgres()} finds it. */
final class PostgresTestDatabase {

    private PostgresTestDatabase() {}

    static String url() {
        return TestServers.postgres();
    }

    /** A pool on the server, in auto-commit mode unless told otherwise. */
    static HikariDataSource pool(int size, boolean autoCommit) {
        return pool(url(), size, autoCommit);
    }

    /** A pool on the server at {@code url}, in auto-commit mode unless told otherwise. */
    static HikariDataSource pool(String url, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setAutoCommit(autoCommit);
        config.setPoolName("inbox-test-" + (autoCommit ? "auto" : "manual"));
        return new HikariDataSource(config);
    }

    /** The server's address, from the URL. */
    static InetSocketAddress server() {
        return Endpoints.address(url());
    }

    /**
     * A small auto-commit pool on the same database reached at {@code host:port} (a fault proxy),
     * with connect and socket timeouts of {@code timeout}, that starts without a server.
     */
    static HikariDataSource poolVia(String host, int port, Duration timeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Endpoints.via(url(), host, port));
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
