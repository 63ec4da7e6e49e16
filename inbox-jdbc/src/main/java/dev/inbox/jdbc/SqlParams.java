package dev.inbox.jdbc;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The values of a {@link NamedSql} statement's parameters, each with its SQL type, so that a null
 * is bound as a typed null. Names are those of the statement, without the colon.
 */
public final class SqlParams {

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement statement, int index) throws SQLException;
    }

    private final Map<String, Binder> values = new HashMap<>();

    private SqlParams() {}

    /** An empty set of values. */
    public static SqlParams create() {
        return new SqlParams();
    }

    /** A text value, or a typed null. */
    public SqlParams text(String name, @Nullable String value) {
        return put(name, (s, i) -> s.setString(i, value));
    }

    /** A binary value ({@code VARBINARY}), or a typed null. */
    public SqlParams bytes(String name, byte @Nullable [] value) {
        return put(name, (s, i) -> {
            if (value == null) {
                s.setNull(i, Types.VARBINARY);
            } else {
                s.setBytes(i, value);
            }
        });
    }

    /** A {@code bigint}. */
    public SqlParams bigint(String name, long value) {
        return put(name, (s, i) -> s.setLong(i, value));
    }

    /** An {@code int}. */
    public SqlParams integer(String name, int value) {
        return put(name, (s, i) -> s.setInt(i, value));
    }

    /** An SQL array, created on the statement's connection. */
    public SqlParams array(String name, Array value) {
        return put(name, (s, i) -> s.setArray(i, value));
    }

    private SqlParams put(String name, Binder binder) {
        values.put(name, binder);
        return this;
    }

    void bind(String name, PreparedStatement statement, int index) throws SQLException {
        Binder binder = values.get(name);
        if (binder == null) {
            throw new IllegalStateException("no value for SQL parameter :" + name);
        }
        binder.bind(statement, index);
    }
}
