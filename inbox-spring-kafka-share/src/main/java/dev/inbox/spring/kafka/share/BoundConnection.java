package dev.inbox.spring.kafka.share;

import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a listener with the inbox's transaction connection as the one Spring's JDBC support hands
 * out for the data source on this thread, so that {@code JdbcTemplate} writes join the claim's
 * transaction. Only transactional mode loads this class (and Spring JDBC).
 */
final class BoundConnection {

    /** The listener's work. */
    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    private BoundConnection() {}

    /**
     * Runs {@code work} with {@code connection} bound to {@code dataSource} on this thread.
     *
     * @throws IllegalStateException if something is bound to {@code dataSource} on this thread already
     */
    static void run(DataSource dataSource, Connection connection, Work work) throws Exception {
        if (TransactionSynchronizationManager.hasResource(dataSource)) {
            throw new IllegalStateException("a connection of " + dataSource + " is bound to this thread already");
        }
        TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(connection));
        try {
            work.run();
        } finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
        }
    }
}
