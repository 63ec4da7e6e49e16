package dev.inbox.jdbc;

import java.sql.Connection;

/**
 * The business write of one event, run in the same transaction as its claim.
 *
 * @param <E> the checked exception the work may throw, rethrown unchanged
 */
@FunctionalInterface
public interface TransactionalWork<E extends Exception> {

    /**
     * Applies the event through {@code connection}, inside the claim's transaction. Do not commit,
     * roll back or close it: {@link TransactionalInbox} does. Throwing rolls the claim back too.
     */
    void run(Connection connection) throws E;
}
