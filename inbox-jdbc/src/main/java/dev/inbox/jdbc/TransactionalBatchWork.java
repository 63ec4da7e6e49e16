package dev.inbox.jdbc;

import java.sql.Connection;

/**
 * The business writes of one event of a batch, inside the batch's one transaction ({@link
 * TransactionalInbox#handleAll(java.util.List, TransactionalBatchWork)}).
 *
 * @param <E> the checked exception the work may throw, rethrown unchanged
 */
@FunctionalInterface
public interface TransactionalBatchWork<E extends Exception> {

    /**
     * Applies the event at {@code index} of the batch through {@code connection}. Do not commit,
     * roll back or close it. Throwing rolls back the whole batch: every claim and every write.
     */
    void run(int index, Connection connection) throws E;
}
