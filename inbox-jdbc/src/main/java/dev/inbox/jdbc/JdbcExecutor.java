package dev.inbox.jdbc;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.InboxArguments;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * Runs the statements of a JDBC store on connections borrowed from the caller's {@link DataSource}
 * (its pool), one short transaction per operation, and turns failures into {@link
 * dev.inbox.InboxStoreException}. It works whether the pool hands out connections in auto-commit
 * mode or not. Closing it never closes the data source: the caller owns it.
 */
public final class JdbcExecutor implements AutoCloseable {

    private final DataSource dataSource;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * An executor on {@code dataSource}.
     *
     * @throws IllegalArgumentException if {@code dataSource} is null
     */
    public JdbcExecutor(DataSource dataSource) {
        this.dataSource = InboxArguments.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Runs {@code step} as one transaction of its own.
     *
     * @param operation names the operation in error messages
     * @throws IllegalStateException if the executor is closed
     * @throws dev.inbox.InboxStoreException if a connection could not be had or the step failed
     */
    public <T> T execute(String operation, SqlFunction<T> step) {
        ensureOpen();
        try (Connection connection = dataSource.getConnection()) {
            if (connection.getAutoCommit()) {
                return step.apply(connection);
            }
            try {
                T result = step.apply(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException rollbackFailure) {
                    e.addSuppressed(rollbackFailure);
                }
                throw e;
            }
        } catch (SQLException e) {
            throw JdbcErrors.translate(operation, e);
        }
    }

    /**
     * Runs {@code batch} again and again, each time as a transaction of its own, until it reports
     * fewer than {@code batchSize} rows, resting between batches as {@code pacing} says: how purges
     * delete in bounded batches without holding one long transaction. A thread interrupted while it
     * rests stops early (see {@link PurgePacing}).
     *
     * @return the rows of all batches together
     */
    public long executeInBatches(String operation, int batchSize, PurgePacing pacing, SqlFunction<Integer> batch) {
        long total = 0;
        while (true) {
            long start = System.nanoTime();
            int rows = execute(operation, batch);
            total += rows;
            if (rows < batchSize || !pacing.rest(start)) {
                return total;
            }
        }
    }

    /**
     * Runs {@code step} on a connection the caller provides, inside the caller's transaction.
     *
     * @throws IllegalArgumentException if {@code connection} is null or in auto-commit mode
     * @throws dev.inbox.InboxStoreException if the step failed
     */
    public <T> T executeIn(Connection connection, String operation, SqlFunction<T> step) {
        InboxArguments.requireNonNull(connection, "connection");
        ensureOpen();
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalArgumentException(
                        "the connection is in auto-commit mode: start a transaction (setAutoCommit(false)) so that the"
                                + " claim commits or rolls back with the business write");
            }
            return step.apply(connection);
        } catch (SQLException e) {
            throw JdbcErrors.translate(operation, e);
        }
    }

    /**
     * Runs {@code update}, which keeps a transactional claim's result ({@link
     * TransactionalInboxStore#keepResultInTransaction}), inside the caller's transaction: it must
     * change exactly the claim's row.
     *
     * @param queryTimeoutSeconds the statement's timeout, 0 for none
     * @throws IllegalArgumentException if {@code connection} is null or in auto-commit mode
     * @throws dev.inbox.InboxStoreException if the update failed or found no COMPLETED record of
     *     {@code key} without a result
     */
    public void keepResultIn(
            Connection connection, InboxKey key, NamedSql update, SqlParams params, int queryTimeoutSeconds) {
        executeIn(connection, "keeping the result of " + key, c -> {
            try (PreparedStatement statement = update.prepare(c, params)) {
                if (queryTimeoutSeconds > 0) {
                    statement.setQueryTimeout(queryTimeoutSeconds);
                }
                // The update is conditioned on result IS NULL, so a matching row always changes:
                // MySQL's useAffectedRows=true counts it too.
                if (statement.executeUpdate() != 1) {
                    throw new InboxStoreException(
                            "no COMPLETED record of " + key + " without a result: keep a result only after an"
                                    + " ACQUIRED claimInTransaction, in the same transaction",
                            null);
                }
                return null;
            }
        });
    }

    /** Throws {@link IllegalStateException} once closed. */
    public void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the store is closed");
        }
    }

    /** Later operations throw {@link IllegalStateException}; the data source stays open. */
    @Override
    public void close() {
        closed.set(true);
    }
}
