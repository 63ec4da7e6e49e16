package dev.inbox.spring;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Claim;
import dev.inbox.DeliveryOutcome;
import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.Work;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * An {@link Inbox} whose claims join the Spring-managed transaction when there is one.
 *
 * <pre>{@code
 * SpringInbox inbox = SpringInbox.joining(Inbox.builder(postgresStore).consumer("billing").build(), dataSource);
 *
 * @Transactional
 * public void on(PaymentEvent event) {
 *     inbox.handle(DedupKeys.eventId(event.id()), () -> jdbc.update("UPDATE account SET ...", ...));
 * }
 * }</pre>
 *
 * <p>Inside a transaction that holds a connection of the data source (a {@code
 * DataSourceTransactionManager}, a {@code JpaTransactionManager}, or a listener container whose
 * transaction manager is one of these), the claim is written on that same connection by {@link
 * TransactionalInboxStore#claimInTransaction}: the record and the business writes commit together
 * or roll back together, so even a crash after the work cannot apply the event twice. A concurrent
 * delivery of the same event waits for this transaction and then sees {@code DUPLICATE}.
 *
 * <p>Outside such a transaction — or when built with {@link #leaseOnly(Inbox)}, for a store that
 * cannot join one (Redis, DynamoDB, Caffeine) — the claim is a lease-mode claim of the inbox, as
 * {@link Inbox#handle} makes it.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class SpringInbox {

    private final Inbox inbox;
    private final @Nullable TransactionalInboxStore store;
    private final @Nullable DataSource dataSource;
    private final String storeKind;

    private SpringInbox(Inbox inbox, @Nullable TransactionalInboxStore store, @Nullable DataSource dataSource) {
        this.inbox = inbox;
        this.store = store;
        this.dataSource = dataSource;
        this.storeKind = inbox.store().getClass().getSimpleName();
    }

    /**
     * Claims that join a Spring-managed transaction on {@code dataSource} whenever one is active,
     * and are lease-mode claims otherwise.
     *
     * @param inbox built on a store that can join a transaction (PostgreSQL, MySQL/MariaDB) on the
     *     database of {@code dataSource}
     * @throws IllegalArgumentException if an argument is null or the inbox's store cannot join a
     *     transaction
     */
    public static SpringInbox joining(Inbox inbox, DataSource dataSource) {
        requireNonNull(inbox, "inbox");
        requireNonNull(dataSource, "dataSource");
        if (!(inbox.store() instanceof TransactionalInboxStore transactional)) {
            throw new IllegalArgumentException("the store " + inbox.store() + " cannot join a transaction (only the"
                    + " SQL stores can); use SpringInbox.leaseOnly(inbox)");
        }
        return new SpringInbox(inbox, transactional, dataSource);
    }

    /**
     * Claims that are always lease-mode claims, for stores that cannot join a transaction.
     *
     * @throws IllegalArgumentException if {@code inbox} is null
     */
    public static SpringInbox leaseOnly(Inbox inbox) {
        return new SpringInbox(requireNonNull(inbox, "inbox"), null, null);
    }

    /** The inbox behind this one, for lease-mode calls and its settings. */
    public Inbox inbox() {
        return inbox;
    }

    /**
     * This inbox for the logical consumer {@code <consumer>/<scope>}, joining the same
     * transactions: the listener adapters give each Kafka consumer group and each RabbitMQ queue a
     * scope of its own, so that two listeners of one application that receive the same event each
     * apply it once.
     *
     * @throws IllegalArgumentException if {@code scope} is null or empty, or the name too long
     */
    public SpringInbox scoped(String scope) {
        if (scope == null || scope.isEmpty()) {
            throw new IllegalArgumentException("scope must not be empty");
        }
        return new SpringInbox(inbox.withConsumer(inbox.consumer() + "/" + scope), store, dataSource);
    }

    /**
     * For listener adapters: reports that a delivery claimed through this inbox came to {@code
     * outcome} ({@link dev.inbox.InboxMetrics#delivered}, under this inbox's consumer).
     *
     * @throws IllegalArgumentException if {@code outcome} is null
     */
    public void delivered(DeliveryOutcome outcome) {
        inbox.metrics().delivered(inbox.consumer(), requireNonNull(outcome, "outcome"));
    }

    /** The data source whose transactions the claims join, or null for an inbox built {@link #leaseOnly}. */
    public @Nullable DataSource dataSource() {
        return dataSource;
    }

    /**
     * True when a claim made now on this thread would join the current transaction: this inbox
     * joins transactions and a Spring transaction holding a connection of its data source is active.
     */
    public boolean joinsTransaction() {
        return dataSource != null
                && TransactionSynchronizationManager.isActualTransactionActive()
                && TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder;
    }

    /**
     * Claims event {@code id}: inside the current transaction when {@link #joinsTransaction()},
     * else in lease mode. An {@code ACQUIRED} claim must end in {@link InboxClaim#complete()} after
     * the work or {@link InboxClaim#release()} instead (no-ops in a transaction).
     *
     * @throws IllegalArgumentException if {@code id} is not a valid key (before any I/O)
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     */
    public InboxClaim claim(String id) {
        if (!joinsTransaction()) {
            return InboxClaim.lease(inbox.claims().claim(id));
        }
        InboxKey key = InboxKey.of(inbox.consumer(), id);
        DataSource source = requireNonNull(dataSource, "dataSource");
        TransactionalInboxStore transactional = requireNonNull(store, "store");
        Connection connection = DataSourceUtils.getConnection(source);
        long start = System.nanoTime();
        // The transaction's commit, Spring's, records the event: observed by Spring, not here.
        try (InboxObserver.Step step = inbox.observer().start("claim", inbox.consumer(), id, storeKind)) {
            try {
                ClaimResult result = transactional.claimInTransaction(connection, key, inbox.retention(), null);
                inbox.claims().observeClaim(result, Duration.ofNanos(System.nanoTime() - start));
                step.outcome(InboxObserver.claimOutcome(result));
                return InboxClaim.transactional(id, result);
            } catch (InboxStoreException e) {
                step.error(e);
                inbox.metrics().storeError(inbox.consumer(), "claim", e);
                throw e;
            }
        } finally {
            DataSourceUtils.releaseConnection(connection, source);
        }
    }

    /**
     * Claims a batch of events: in lease mode in as few round trips as the store allows ({@link
     * dev.inbox.InboxClaims#claimAll}); inside the current transaction in one call ({@link
     * TransactionalInboxStore#claimAllInTransaction}: one statement per chunk on PostgreSQL), a key
     * repeated in {@code ids} answered {@code DUPLICATE} after its first occurrence. Each {@code
     * ACQUIRED} claim must end as {@link #claim(String)} says.
     *
     * @return one claim per id, in the same order
     * @throws IllegalArgumentException if {@code ids} is null or an id is not a valid key (before
     *     any I/O)
     * @throws InboxStoreException if the store could not answer; nothing may be acknowledged
     */
    public List<InboxClaim> claimAll(List<String> ids) {
        requireNonNull(ids, "ids");
        if (!joinsTransaction()) {
            List<InboxClaim> claims = new ArrayList<>(ids.size());
            for (Claim claim : inbox.claims().claimAll(ids)) {
                claims.add(InboxClaim.lease(claim));
            }
            return claims;
        }
        List<InboxKey> keys = new ArrayList<>(ids.size());
        for (String id : ids) {
            keys.add(InboxKey.of(inbox.consumer(), id)); // every id checked before the first statement
        }
        if (keys.isEmpty()) {
            return List.of();
        }
        // One call for the batch (one statement per chunk on PostgreSQL), not a round trip per id.
        DataSource source = requireNonNull(dataSource, "dataSource");
        TransactionalInboxStore transactional = requireNonNull(store, "store");
        Connection connection = DataSourceUtils.getConnection(source);
        long start = System.nanoTime();
        try (InboxObserver.Step step = inbox.observer().start("claimAll", inbox.consumer(), null, storeKind)) {
            List<ClaimResult> results;
            try {
                results = transactional.claimAllInTransaction(connection, keys, inbox.retention());
            } catch (InboxStoreException e) {
                step.error(e);
                throw e;
            }
            Duration each = Duration.ofNanos((System.nanoTime() - start) / keys.size());
            List<InboxClaim> claims = new ArrayList<>(ids.size());
            for (int i = 0; i < ids.size(); i++) {
                inbox.claims().observeClaim(results.get(i), each);
                claims.add(InboxClaim.transactional(ids.get(i), results.get(i)));
            }
            return claims;
        } catch (InboxStoreException e) {
            inbox.metrics().storeError(inbox.consumer(), "claim", e);
            throw e;
        } finally {
            DataSourceUtils.releaseConnection(connection, source);
        }
    }

    /**
     * Runs {@code work} once per event: claims {@code id} ({@link #claim(String)}), runs the work
     * when acquired, and completes the claim (lease mode) or leaves it to the transaction's commit.
     *
     * <p>In a transaction, work that throws marks the transaction rollback-only when it was
     * started by {@code @Transactional} (so a checked exception, which {@code @Transactional} would
     * otherwise commit, cannot commit the claim without its work); in lease mode the claim is
     * released. Either way the exception propagates.
     *
     * @return {@code PROCESSED}, {@code DUPLICATE} (acknowledge the message) or {@code BUSY} (do
     *     not acknowledge it)
     * @throws E what {@code work} threw
     * @throws IllegalArgumentException if {@code id} is not a valid key or {@code work} is null
     * @throws InboxStoreException if the store could not answer or record the completion
     */
    public <E extends Exception> HandleResult handle(String id, Work<E> work) throws E {
        requireNonNull(work, "work");
        InboxClaim claim = claim(id);
        if (claim.status() != ClaimStatus.ACQUIRED) {
            return new HandleResult(
                    claim.status() == ClaimStatus.DUPLICATE ? HandleOutcome.DUPLICATE : HandleOutcome.BUSY,
                    claim.result(),
                    false);
        }
        try {
            work.run();
        } catch (Throwable failure) {
            abandon(claim, failure);
            throw SpringInbox.<E>rethrow(failure);
        }
        boolean completed = claim.complete();
        return new HandleResult(HandleOutcome.PROCESSED, claim.result(), !completed);
    }

    /**
     * Undoes an acquired claim whose work failed: releases a lease-mode claim, marks the
     * {@code @Transactional} transaction rollback-only for a transactional one. A failure to do so
     * is added to {@code failure}, which is what the caller must see.
     */
    static void abandon(InboxClaim claim, Throwable failure) {
        try {
            if (claim.isTransactional()) {
                TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
            } else {
                claim.release();
            }
        } catch (NoTransactionException e) {
            // A transaction not started by @Transactional (a listener container's, a TransactionTemplate's)
            // rolls back on the exception that propagates.
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> RuntimeException rethrow(Throwable failure) throws E {
        if (failure instanceof Error error) {
            throw error;
        }
        throw (E) failure;
    }

    @Override
    public String toString() {
        return "SpringInbox[" + inbox + (dataSource == null ? ", lease only" : ", joins transactions") + "]";
    }
}
