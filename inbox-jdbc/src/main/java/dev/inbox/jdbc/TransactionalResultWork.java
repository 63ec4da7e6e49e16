package dev.inbox.jdbc;

import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * The business write of one event that answers with a result, run in the same transaction as its
 * claim; see {@link TransactionalInbox#handleReturning}.
 *
 * @param <T> the result type
 * @param <E> the checked exception the work may throw, rethrown unchanged
 */
@FunctionalInterface
public interface TransactionalResultWork<T, E extends Exception> {

    /**
     * Applies the event through {@code connection}, inside the claim's transaction, and returns its
     * result (null keeps none). Do not commit, roll back or close the connection. Throwing rolls
     * the claim back too.
     */
    @Nullable
    T run(Connection connection) throws E;
}
