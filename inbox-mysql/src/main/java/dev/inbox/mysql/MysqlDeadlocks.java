package dev.inbox.mysql;

import dev.inbox.jdbc.SqlFunction;
import java.sql.Connection;
import java.sql.SQLException;

/** InnoDB's deadlock victims, retried where the store owns the whole transaction. */
final class MysqlDeadlocks {

    private static final int RETRIES = 5;

    private MysqlDeadlocks() {}

    /**
     * Runs {@code step}, again when InnoDB chose it as a deadlock victim: on a connection of the
     * store's own, the victim's transaction held nothing but this step, so running it again is
     * what the caller would do.
     */
    static <T> T retrying(Connection connection, SqlFunction<T> step) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return step.apply(connection);
            } catch (SQLException e) {
                if (!isDeadlock(e) || attempt >= RETRIES) {
                    throw e;
                }
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            }
        }
    }

    static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
    }
}
