package dev.inbox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement whose parameters have names ({@code :consumer}, {@code :grace_us}) instead of
 * positions, so that its text and the values bound to it are read side by side and a parameter
 * used twice is bound once. Parsed once; {@link #prepare(Connection, SqlParams)} binds by name.
 *
 * <p>A name is a colon followed by a lower-case letter, then letters, digits and underscores. A
 * PostgreSQL cast ({@code ?::text[]}, {@code NULL::smallint}) is not a name, nor is anything inside
 * a single-quoted literal.
 */
public final class NamedSql {

    private static final Pattern TOKEN = Pattern.compile("'(?:[^']|'')*'|::|:([a-z][a-z0-9_]*)");

    private final String sql;
    private final List<String> names;

    private NamedSql(String sql, List<String> names) {
        this.sql = sql;
        this.names = List.copyOf(names);
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException if {@code text} has no statement
     */
    public static NamedSql of(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no SQL statement given");
        }
        List<String> names = new ArrayList<>();
        StringBuilder sql = new StringBuilder();
        Matcher m = TOKEN.matcher(text);
        while (m.find()) {
            if (m.group(1) != null) {
                names.add(m.group(1));
                m.appendReplacement(sql, "?");
            } else {
                m.appendReplacement(sql, Matcher.quoteReplacement(m.group()));
            }
        }
        m.appendTail(sql);
        return new NamedSql(sql.toString(), names);
    }

    /** The statement with {@code ?} placeholders, as the driver sees it. */
    public String sql() {
        return sql;
    }

    /** The parameter names, in the order of their placeholders (a name used twice appears twice). */
    public List<String> names() {
        return names;
    }

    /**
     * Prepares the statement on {@code connection} and binds every parameter from {@code params}.
     *
     * @throws IllegalStateException if a parameter has no value in {@code params}: a bug, found
     *     before the statement is sent
     */
    public PreparedStatement prepare(Connection connection, SqlParams params) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            bind(statement, params);
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /** Binds every parameter of an already prepared statement (re-bound for each execution). */
    public void bind(PreparedStatement statement, SqlParams params) throws SQLException {
        for (int i = 0; i < names.size(); i++) {
            params.bind(names.get(i), statement, i + 1);
        }
    }

    @Override
    public String toString() {
        return sql;
    }
}
