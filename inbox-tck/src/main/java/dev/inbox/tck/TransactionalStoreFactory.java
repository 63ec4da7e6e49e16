package dev.inbox.tck;

import dev.inbox.jdbc.TransactionalInboxStore;

/**
 * Builds the store under test inside a consumer process of {@link ConsumerProcessContract}: a
 * public class with a public no-argument constructor, named to the child JVM, which builds the
 * store exactly as the test does (same table, same lock wait bound).
 */
public interface TransactionalStoreFactory {

    /** A store on the database at {@code jdbcUrl}. */
    TransactionalInboxStore create(String jdbcUrl) throws Exception;
}
