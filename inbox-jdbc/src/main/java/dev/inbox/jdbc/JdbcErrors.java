package dev.inbox.jdbc;

import dev.inbox.InboxStoreException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientException;

/** Turns JDBC failures into {@link InboxStoreException}s that say what failed and whether to retry. */
public final class JdbcErrors {

    /** MySQL's and MariaDB's ER_LOCK_WAIT_TIMEOUT, whose SQL state is the generic HY000. */
    private static final int MYSQL_LOCK_WAIT_TIMEOUT = 1205;

    private JdbcErrors() {}

    /**
     * Wraps {@code e}, naming the operation and the SQL state. SQL state classes 08 (connection),
     * 40 (transaction rollback, deadlock, serialization failure), 53 (insufficient resources), 57
     * (operator intervention, such as a cancelled statement), PostgreSQL's 55P03 (a lock wait that
     * timed out), MySQL's error 1205 (the same) and timeouts are retryable; anything
     * else (a missing table, bad credentials, a syntax error) is not.
     */
    public static InboxStoreException translate(String operation, SQLException e) {
        String state = e.getSQLState();
        return new InboxStoreException(
                operation + " failed" + (state == null ? "" : " (SQL state " + state + ")") + ": " + e.getMessage(),
                e,
                isRetryable(e));
    }

    /** True when the failure may pass if the same operation is tried again. */
    public static boolean isRetryable(SQLException e) {
        if (e instanceof SQLTransientException || e instanceof SQLTimeoutException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null || state.length() < 2) {
            return true; // no state: most often an I/O failure inside the driver
        }
        if ("55P03".equals(state) || e.getErrorCode() == MYSQL_LOCK_WAIT_TIMEOUT) {
            return true;
        }
        switch (state.substring(0, 2)) {
            case "08":
            case "40":
            case "53":
            case "57":
                return true;
            default:
                return false;
        }
    }
}
