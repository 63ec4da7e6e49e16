package dev.inbox.spring.web;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.http.RequestTransaction;
import dev.inbox.http.RequestTransactions;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import java.sql.Connection;
import java.time.Duration;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Transactional mode for {@code Idempotency-Key} on Spring MVC: each request's transaction is
 * opened with the application's {@link PlatformTransactionManager} (propagation {@code REQUIRED},
 * bound to the request's thread), and the key is claimed on its connection of {@code dataSource} —
 * the connection the handler's {@code @Transactional} methods, {@code JdbcTemplate} and JPA use in
 * it. The claim, the handler's writes and the kept response then commit together.
 *
 * <pre>{@code
 * IdempotentRequests requests = IdempotentRequests.builder(inbox) // an inbox on PostgreSQL or MySQL
 *         .scope(IdempotencyScope.principal())
 *         .transactional(new SpringRequestTransactions(transactionManager, dataSource, inbox))
 *         .build();
 * new IdempotencyFilter(requests, new IdempotentRoutes(applicationContext));
 * }</pre>
 *
 * <p>The transaction manager must manage {@code dataSource}'s connections (a {@code
 * DataSourceTransactionManager}, {@code JdbcTransactionManager} or {@code JpaTransactionManager} on
 * it), and the inbox's store must live in that database. A handler that calls code with {@code
 * REQUIRES_NEW} writes outside the request's transaction: those writes are not covered.
 */
public final class SpringRequestTransactions implements RequestTransactions {

    private static final TransactionDefinition REQUIRED =
            new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRED);

    private final PlatformTransactionManager transactions;
    private final DataSource dataSource;
    private final TransactionalInboxStore store;

    /**
     * Requests' transactions from {@code transactions}, claims on {@code dataSource} in the store
     * of {@code inbox}.
     *
     * @throws IllegalArgumentException if an argument is null, or the inbox's store cannot claim
     *     inside a transaction (only the JDBC stores can)
     */
    public SpringRequestTransactions(PlatformTransactionManager transactions, DataSource dataSource, Inbox inbox) {
        this.transactions = requireNonNull(transactions, "transactions");
        this.dataSource = requireNonNull(dataSource, "dataSource");
        requireNonNull(inbox, "inbox");
        if (!(inbox.store() instanceof TransactionalInboxStore transactional)) {
            throw new IllegalArgumentException("transactional mode needs an inbox on a store in the handler's database"
                    + " (PostgreSQL or MySQL/MariaDB), but its store is " + inbox.store());
        }
        this.store = transactional;
    }

    @Override
    public RequestTransaction begin() {
        TransactionStatus status;
        try {
            status = transactions.getTransaction(REQUIRED);
        } catch (TransactionException e) {
            throw new InboxStoreException("could not open the request's transaction: " + e.getMessage(), e);
        }
        return new Open(status);
    }

    @Override
    public String toString() {
        return "SpringRequestTransactions[" + transactions + ", " + store + "]";
    }

    /** One request's transaction. */
    private final class Open implements RequestTransaction {
        private final TransactionStatus status;

        Open(TransactionStatus status) {
            this.status = status;
        }

        @Override
        public ClaimResult claim(InboxKey key, Duration retention, @Nullable String fingerprint) {
            return onConnection(connection -> store.claimInTransaction(connection, key, retention, fingerprint));
        }

        @Override
        public void keep(InboxKey key, byte[] response) {
            onConnection(connection -> {
                store.keepResultInTransaction(connection, key, response);
                return null;
            });
        }

        @Override
        public boolean commit() {
            if (status.isRollbackOnly()) {
                rollback();
                return false;
            }
            try {
                transactions.commit(status);
                return true;
            } catch (TransactionException e) {
                throw new InboxStoreException("the commit of the request's transaction failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void rollback() {
            if (status.isCompleted()) {
                return;
            }
            try {
                transactions.rollback(status);
            } catch (TransactionException e) {
                System.getLogger(SpringRequestTransactions.class.getName())
                        .log(System.Logger.Level.WARNING, "the rollback of a request's transaction failed", e);
            }
        }

        private <T> T onConnection(Function<Connection, T> work) {
            Connection connection;
            try {
                connection = DataSourceUtils.getConnection(dataSource);
            } catch (DataAccessException e) {
                throw new InboxStoreException("no connection in the request's transaction: " + e.getMessage(), e);
            }
            try {
                return work.apply(connection);
            } finally {
                DataSourceUtils.releaseConnection(connection, dataSource);
            }
        }
    }
}
