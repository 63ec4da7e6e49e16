package dev.inbox.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.TestEndpoint;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MySQL or MariaDB server the tests use: {@code INBOX_TEST_MYSQL_URL} (a Connector/J URL) when
 * set, else MariaDB or MySQL on 127.0.0.1:3306 (database {@code test}, user {@code root}, empty
 * password); see {@link TestEndpoint} for what happens when neither answers.
 */
final class MysqlTestDatabase {

    private static final Pattern HOST_PORT = Pattern.compile("//([^/:?]+)(?::(\\d+))?/");

    private MysqlTestDatabase() {}

    static String url() {
        return TestEndpoint.resolve(
                "MySQL/MariaDB",
                "INBOX_TEST_MYSQL_URL",
                "jdbc:mysql://127.0.0.1:3306/test?user=root&password=&sslMode=DISABLED"
                        + "&allowPublicKeyRetrieval=true&connectTimeout=3000",
                "jdbc:mysql://host:3306/db?user=u&password=p",
                url -> DriverManager.getConnection(url).close());
    }

    /** A pool on the server, in auto-commit mode unless told otherwise. */
    static HikariDataSource pool(int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(size);
        config.setAutoCommit(autoCommit);
        config.setPoolName("inbox-mysql-test-" + (autoCommit ? "auto" : "manual"));
        return new HikariDataSource(config);
    }

    /** The server's address, from the URL. */
    static InetSocketAddress server() {
        Matcher m = HOST_PORT.matcher(url());
        if (!m.find()) {
            throw new IllegalStateException("no host in the MySQL JDBC URL: " + url());
        }
        return new InetSocketAddress(m.group(1), m.group(2) == null ? 3306 : Integer.parseInt(m.group(2)));
    }

    /**
     * A small auto-commit pool on the same database reached at {@code host:port} (a fault proxy),
     * with connect and socket timeouts of {@code timeout}, that starts without a server.
     */
    static HikariDataSource poolVia(String host, int port, Duration timeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(HOST_PORT.matcher(url()).replaceFirst("//" + host + ":" + port + "/"));
        String millis = Long.toString(timeout.toMillis());
        config.addDataSourceProperty("connectTimeout", millis);
        config.addDataSourceProperty("socketTimeout", millis);
        config.setConnectionTimeout(Math.max(250, timeout.toMillis()));
        config.setInitializationFailTimeout(-1);
        config.setMaximumPoolSize(2);
        config.setPoolName("inbox-mysql-test-via-" + port);
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
