package dev.inbox.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.TestEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The MySQL or MariaDB server the tests use: {@code INBOX_TEST_MYSQL_URL} (a Connector/J URL) when
 * set, else MariaDB or MySQL on 127.0.0.1:3306 (database {@code test}, user {@code root}, empty
 * password); see {@link TestEndpoint} for what happens when neither answers.
 */
final class MysqlTestDatabase {

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
