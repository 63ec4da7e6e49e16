package dev.inbox.jdbc;

import dev.inbox.spi.InboxArguments;
import java.util.regex.Pattern;

/**
 * A validated SQL identifier (a schema or table name) for JDBC stores. Only letters, digits and
 * underscores are accepted, starting with a letter or underscore, at most 63 characters (the
 * PostgreSQL limit; MySQL allows 64): such a name can be quoted safely in any dialect, so no text
 * from outside ever reaches SQL unchecked.
 */
public final class SqlIdentifier {

    private static final Pattern VALID = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String name;

    private SqlIdentifier(String name) {
        this.name = name;
    }

    /**
     * Validates {@code name}.
     *
     * @param what what the name is for, used in the error message ("table", "schema")
     * @throws IllegalArgumentException if {@code name} is null or not a plain identifier
     */
    public static SqlIdentifier of(String name, String what) {
        InboxArguments.requireNonNull(name, what);
        if (!VALID.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be 1 to 63 letters, digits or underscores, starting"
                    + " with a letter or underscore, but was \"" + name + "\"");
        }
        return new SqlIdentifier(name);
    }

    /** The name as given. */
    public String name() {
        return name;
    }

    /** The name quoted with {@code quote} on both sides (a double quote or a backtick). */
    public String quoted(char quote) {
        return quote + name + quote;
    }

    @Override
    public String toString() {
        return name;
    }
}
