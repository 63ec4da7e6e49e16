package dev.inbox.spring.boot;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The store's answer at startup: one release of a key nobody holds (a round trip that changes
 * nothing, as the health indicator makes). A store that cannot answer stops the startup with an
 * {@link InboxStartupException} that names the real cause: the table is missing, or the server
 * could not be reached (and why).
 */
final class InboxStoreCheck {

    /** PostgreSQL's undefined_table, and the SQL standard's "base table not found" (MySQL, MariaDB). */
    private static final String[] MISSING_TABLE_STATES = {"42P01", "42S02"};

    private static final String DYNAMODB_NOT_FOUND =
            "software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException";

    private InboxStoreCheck() {}

    /**
     * Asks {@code store} once, for {@code consumer}.
     *
     * @throws InboxStartupException if it did not answer
     */
    static void verify(InboxStore store, String consumer) {
        try {
            store.release(InboxKey.of(consumer, "inbox-startup-probe"), OwnerToken.random());
        } catch (RuntimeException failure) {
            throw explain("the inbox store " + store, failure, true);
        }
    }

    /**
     * The startup failure {@code failure} of {@code what} (a store, or a store being built) comes
     * to; {@code skippable} when {@code inbox.check-store=false} would let the application start.
     */
    static InboxStartupException explain(String what, Throwable failure, boolean skippable) {
        Throwable missing = missingTable(failure);
        if (missing == null) {
            missing = causeNamed(failure, DYNAMODB_NOT_FOUND);
        }
        if (missing != null) {
            return new InboxStartupException(
                    "The inbox table of " + what + " does not exist (" + missing.getMessage() + ").",
                    "Set inbox.create-schema=true to create it at startup, or create it beforehand: the SQL"
                            + " stores ship their script in their jar (dev/inbox/postgres/schema-v3.sql,"
                            + " dev/inbox/mysql/schema-v3.sql), under the schema and name that inbox.jdbc.schema"
                            + " and inbox.jdbc.table give (inbox.dynamodb.table for DynamoDB).",
                    failure);
        }
        return unreachable(
                what,
                failure,
                skippable
                        ? " To start without it, set inbox.check-store=false: the health indicator then reports the"
                                + " store DOWN, and messages wait, unacknowledged, until it answers."
                        : "");
    }

    /**
     * {@code what} did not answer at startup, for {@code failure}'s root cause; the action says to
     * check the server, then {@code howToStartWithout}.
     */
    static InboxStartupException unreachable(String what, Throwable failure, String howToStartWithout) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return new InboxStartupException(
                Character.toUpperCase(what.charAt(0)) + what.substring(1) + " did not answer at startup: "
                        + root.getClass().getSimpleName() + ": " + root.getMessage(),
                "Check that its server runs and that the application's connection settings point at it"
                        + " (spring.datasource.url, inbox.redis.url, the DynamoDbClient's endpoint)."
                        + howToStartWithout,
                failure);
    }

    private static @Nullable SQLException missingTable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                for (String state : MISSING_TABLE_STATES) {
                    if (state.equals(sql.getSQLState())) {
                        return sql;
                    }
                }
            }
        }
        return null;
    }

    private static @Nullable Throwable causeNamed(Throwable failure, String className) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            for (Class<?> type = t.getClass(); type != null; type = type.getSuperclass()) {
                if (type.getName().equals(className)) {
                    return t;
                }
            }
        }
        return null;
    }
}
