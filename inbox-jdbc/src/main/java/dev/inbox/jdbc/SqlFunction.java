package dev.inbox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A step that uses a JDBC connection.
 *
 * @param <T> what it returns
 */
@FunctionalInterface
public interface SqlFunction<T> {

    /** Runs the step on {@code connection}. */
    T apply(Connection connection) throws SQLException;
}
