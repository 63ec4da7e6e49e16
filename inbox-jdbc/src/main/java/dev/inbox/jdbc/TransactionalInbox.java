package dev.inbox.jdbc;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.Reply;
import dev.inbox.ResultCodec;
import dev.inbox.RetentionAdvice;
import dev.inbox.RetentionAdvisor;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The inbox-table pattern for applications without a transaction framework: the claim and the
 * business write run in one JDBC transaction, so they commit or roll back together.
 *
 * <pre>{@code
 * TransactionalInbox inbox = TransactionalInbox.builder(store, dataSource).consumer("billing").build();
 * inbox.handle(DedupKeys.kafka(topic, partition, offset), connection -> {
 *     try (PreparedStatement s = connection.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
 *         ...
 *     }
 * });
 * }</pre>
 *
 * <p>Each {@link #handle} takes a connection from the data source, turns auto-commit off, claims
 * the key inside the transaction, runs the work on {@code ACQUIRED} and commits. A duplicate
 * rolls back the (empty) transaction; work that throws rolls back both. If the commit itself
 * fails, its outcome is unknown and an {@link InboxStoreException} is thrown: the redelivery is
 * then answered {@code DUPLICATE} if the commit had in fact succeeded, so nothing is applied
 * twice.
 *
 * <p>Use it at the database's default isolation, READ COMMITTED: a concurrent delivery of the same
 * event waits for this transaction and then sees {@code DUPLICATE} (commit) or {@code ACQUIRED}
 * (rollback). Under REPEATABLE READ or SERIALIZABLE the database may instead abort one of them
 * with a serialization failure, surfaced as a retryable {@link InboxStoreException}.
 *
 * <p>Spring and other frameworks that manage the transaction should call {@link
 * TransactionalInboxStore#claimInTransaction(Connection, InboxKey, Duration, String)} on the transaction's
 * connection instead.
 */
public final class TransactionalInbox {

    private final TransactionalInboxStore store;
    private final DataSource dataSource;
    private final String consumer;
    private final Duration retention;
    private final InboxMetrics metrics;
    private final InboxObserver observer;
    private final String storeKind;
    private final RetentionAdvisor advisor;
    private volatile boolean advisorPublished;

    private TransactionalInbox(Builder builder, String consumer) {
        this.store = builder.store;
        this.dataSource = builder.dataSource;
        this.consumer = consumer;
        this.retention = builder.retention;
        this.metrics = builder.metrics;
        this.observer = builder.observer;
        this.storeKind = store.getClass().getSimpleName();
        // The work runs inside the claim's transaction, so the record exists only once it is done.
        this.advisor = new RetentionAdvisor(retention, Duration.ZERO);
    }

    /**
     * The redelivery lag this inbox has measured from the duplicates it met, and the retention it
     * recommends (see {@link RetentionAdvisor}).
     */
    public RetentionAdvice retentionAdvice() {
        return advisor.advice();
    }

    /** How long a completed event's record suppresses duplicates. */
    public Duration retention() {
        return retention;
    }

    /**
     * Starts configuring a transactional inbox whose records and business data share {@code
     * dataSource}.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder builder(TransactionalInboxStore store, DataSource dataSource) {
        return new Builder(requireNonNull(store, "store"), requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Like {@link #handle(String, TransactionalWork)}, for request/reply consumers: the work's
     * result is kept with the claim's record in the same transaction (encoded by {@code codec}), and
     * a duplicate delivery is answered with it instead of running the work. A result longer than
     * the store keeps ({@link TransactionalInboxStore#maxResultBytes()}) rolls the transaction back
     * and throws {@link IllegalArgumentException}, as failing work would.
     *
     * @throws E what {@code work} threw, after the transaction was rolled back
     * @throws IllegalArgumentException if {@code id} is invalid, {@code codec} or {@code work} is
     *     null, or the encoded result is too long
     * @throws UnsupportedOperationException if the store keeps no results (before any I/O)
     * @throws InboxStoreException if the database failed, including a commit whose outcome is
     *     unknown; do not acknowledge the message
     */
    public <T, E extends Exception> Reply<T> handleReturning(
            String id, ResultCodec<T> codec, TransactionalResultWork<T, E> work) throws E {
        requireNonNull(codec, "codec");
        requireNonNull(work, "work");
        int limit = store.maxResultBytes();
        if (limit <= 0) {
            throw new UnsupportedOperationException(store + " keeps no results (maxResultBytes() is " + limit + ")");
        }
        Object[] value = new Object[1];
        HandleResult handled = handle(id, null, connection -> {
            T result = work.run(connection);
            if (result != null) {
                store.keepResultInTransaction(connection, InboxKey.of(consumer, id), codec.encode(result));
            }
            value[0] = result;
        });
        @SuppressWarnings("unchecked")
        T processed = (T) value[0];
        if (handled.outcome() == HandleOutcome.DUPLICATE) {
            byte[] stored = handled.claim().storedResult();
            return new Reply<>(handled, stored == null ? null : codec.decode(stored));
        }
        return new Reply<>(handled, handled.outcome() == HandleOutcome.PROCESSED ? processed : null);
    }

    /** Like {@link #handle(String, String, TransactionalWork)} without a payload fingerprint. */
    public <E extends Exception> HandleResult handle(String id, TransactionalWork<E> work) throws E {
        return handle(id, null, work);
    }

    /**
     * Claims event {@code id} and runs {@code work} in one transaction, unless the event was
     * already applied ({@code DUPLICATE}) or a lease-mode delivery holds it ({@code BUSY}).
     *
     * @throws E what {@code work} threw, after the transaction was rolled back
     * @throws IllegalArgumentException if {@code id} or {@code fingerprint} is invalid or {@code
     *     work} is null
     * @throws InboxStoreException if the database failed, including a commit whose outcome is
     *     unknown; do not acknowledge the message
     */
    public <E extends Exception> HandleResult handle(String id, @Nullable String fingerprint, TransactionalWork<E> work)
            throws E {
        InboxKey key = InboxKey.of(consumer, id);
        dev.inbox.spi.ClaimRequest.validateFingerprint(fingerprint);
        requireNonNull(work, "work");
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                return inTransaction(connection, key, fingerprint, work);
            } finally {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
            }
        } catch (WorkFailure e) {
            throw TransactionalInbox.<E>rethrow(e.getCause());
        } catch (SQLException e) {
            InboxStoreException failure = JdbcErrors.translate("transactional handle of " + key, e);
            metrics.storeError(consumer, "commit", failure);
            throw failure;
        }
    }

    /**
     * Handles a batch of events in <em>one</em> transaction: claims the ids on one connection ({@link
     * TransactionalInboxStore#claimAllInTransaction}: one statement per chunk of ids on PostgreSQL),
     * runs {@code work} for each {@code ACQUIRED} one in order, and commits once — one commit, and one
     * wait for the database's durable write, for the whole batch. An id repeated in the batch is
     * applied at its first occurrence and answered {@code DUPLICATE} after.
     *
     * <p>The batch stops at the first {@code BUSY} id (a lease-mode delivery holds that event): the
     * ids before it commit, it is answered {@code BUSY}, and the ids after it are neither claimed nor
     * answered — the returned list is then shorter than {@code ids}, as in-order consumers (a Kafka
     * partition) need. Work that throws rolls back the whole batch, claims and writes, and the
     * exception propagates: the caller knows from the index its work was given which event failed,
     * and may handle the batch again without it.
     *
     * @return the outcome of each id up to and including the first {@code BUSY} one
     * @throws E what {@code work} threw, after the transaction was rolled back
     * @throws IllegalArgumentException if {@code ids} or {@code work} is null or an id is invalid
     *     (before any I/O)
     * @throws InboxStoreException if the database failed, including a commit whose outcome is
     *     unknown; do not acknowledge any message of the batch
     */
    public <E extends Exception> List<HandleOutcome> handleAll(List<String> ids, TransactionalBatchWork<E> work)
            throws E {
        requireNonNull(work, "work");
        List<InboxKey> keys = new ArrayList<>(requireNonNull(ids, "ids").size());
        for (String id : ids) {
            keys.add(InboxKey.of(consumer, id));
        }
        if (keys.isEmpty()) {
            return List.of();
        }
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                return allInTransaction(connection, keys, work);
            } finally {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
            }
        } catch (WorkFailure e) {
            throw TransactionalInbox.<E>rethrow(e.getCause());
        } catch (SQLException e) {
            InboxStoreException failure = JdbcErrors.translate("transactional batch of " + keys.size() + " keys", e);
            metrics.storeError(consumer, "commit", failure);
            throw failure;
        }
    }

    /**
     * Claims the whole batch in one call ({@link TransactionalInboxStore#claimAllInTransaction}: one
     * round trip per chunk on stores that can), then runs the work of each ACQUIRED key and commits.
     * A BUSY key means the batch must stop there, but the keys after it were claimed too: every
     * claim is rolled back and the batch is handled one key at a time instead (rare: only a
     * lease-mode delivery holding the event answers BUSY).
     */
    private <E extends Exception> List<HandleOutcome> allInTransaction(
            Connection connection, List<InboxKey> keys, TransactionalBatchWork<E> work) throws SQLException {
        long start = System.nanoTime();
        List<ClaimResult> claims;
        try (InboxObserver.Step step = observer.start("claimAll", consumer, null, storeKind)) {
            try {
                claims = store.claimAllInTransaction(connection, keys, retention);
            } catch (RuntimeException e) {
                throw claimFailed(connection, step, e);
            }
        }
        for (ClaimResult claim : claims) {
            if (claim.status() == ClaimStatus.BUSY) {
                connection.rollback();
                return oneByOne(connection, keys, work);
            }
        }
        long each = (System.nanoTime() - start) / keys.size();
        return apply(
                connection,
                keys,
                i -> {
                    observe(claims.get(i), each);
                    return claims.get(i);
                },
                work);
    }

    /** The batch claimed and worked key by key, stopping at the first BUSY one. */
    private <E extends Exception> List<HandleOutcome> oneByOne(
            Connection connection, List<InboxKey> keys, TransactionalBatchWork<E> work) throws SQLException {
        return apply(connection, keys, i -> claimIn(connection, keys.get(i), null), work);
    }

    /** The claim of a batch's {@code index}th key. */
    private interface BatchClaim {
        ClaimResult at(int index) throws SQLException;
    }

    /**
     * Runs the work of each key whose claim is ACQUIRED, in order, stopping at the first BUSY one,
     * then commits.
     */
    private <E extends Exception> List<HandleOutcome> apply(
            Connection connection, List<InboxKey> keys, BatchClaim claims, TransactionalBatchWork<E> work)
            throws SQLException {
        List<HandleOutcome> outcomes = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            ClaimResult claim = claims.at(i);
            if (claim.status() == ClaimStatus.BUSY) {
                outcomes.add(HandleOutcome.BUSY);
                break;
            }
            if (!claim.isAcquired()) {
                outcomes.add(HandleOutcome.DUPLICATE);
                continue;
            }
            int index = i;
            runOrRollBack(connection, keys.get(i), () -> work.run(index, connection));
            outcomes.add(HandleOutcome.PROCESSED);
        }
        commit(connection, null);
        return outcomes;
    }

    /** The work of one event, on the transaction's connection. */
    @FunctionalInterface
    private interface Run {
        void run() throws Exception;
    }

    /** Runs one event's work as a {@code work} step; work that throws rolls the transaction back. */
    private void runOrRollBack(Connection connection, InboxKey key, Run work) {
        try (InboxObserver.Step step = observer.start("work", consumer, key.id(), storeKind)) {
            try {
                work.run();
                step.outcome("done");
            } catch (Throwable failure) {
                step.outcome("failed");
                step.error(failure);
                rollback(connection, failure);
                throw new WorkFailure(failure); // keeps the work's own SQLException apart from the store's
            }
        }
    }

    /** Commits the transaction as a {@code complete} step: the commit is what records the events. */
    private void commit(Connection connection, @Nullable InboxKey key) throws SQLException {
        try (InboxObserver.Step step = observer.start("complete", consumer, key == null ? null : key.id(), storeKind)) {
            try {
                connection.commit();
                step.outcome("completed");
            } catch (SQLException e) {
                step.error(e);
                throw e;
            }
        }
    }

    /** One claim inside the caller's transaction, reported; rolls back and rethrows when the store fails. */
    /** Reports one claim: its meter, and the redelivery lag and retention advice of a duplicate. */
    private void observe(ClaimResult claim, long nanos) {
        if (!advisorPublished) {
            advisorPublished = true; // at its first claim: an inbox that never claims publishes no advice
            metrics.retentionAdvisor(consumer, advisor);
        }
        metrics.claimed(consumer, claim, nanos);
        Duration lag = advisor.observe(claim);
        if (lag != null) {
            metrics.duplicateLag(consumer, lag, claim.pastRetention());
        }
    }

    private ClaimResult claimIn(Connection connection, InboxKey key, @Nullable String fingerprint) {
        try (InboxObserver.Step step = observer.start("claim", consumer, key.id(), storeKind)) {
            long start = System.nanoTime();
            try {
                ClaimResult claim = store.claimInTransaction(connection, key, retention, fingerprint);
                observe(claim, System.nanoTime() - start);
                step.outcome(InboxObserver.claimOutcome(claim));
                return claim;
            } catch (RuntimeException e) {
                throw claimFailed(connection, step, e);
            }
        }
    }

    /** A claim that threw {@code e}: observed and counted, the transaction rolled back; returns {@code e}. */
    private RuntimeException claimFailed(Connection connection, InboxObserver.Step step, RuntimeException e) {
        step.error(e);
        if (e instanceof InboxStoreException storeFailure) {
            metrics.storeError(consumer, "claim", storeFailure);
        }
        rollback(connection, e);
        return e;
    }

    private <E extends Exception> HandleResult inTransaction(
            Connection connection, InboxKey key, @Nullable String fingerprint, TransactionalWork<E> work)
            throws SQLException {
        ClaimResult claim = claimIn(connection, key, fingerprint);
        if (!claim.isAcquired()) {
            connection.rollback();
            return new HandleResult(
                    claim.status() == dev.inbox.spi.ClaimStatus.DUPLICATE
                            ? HandleOutcome.DUPLICATE
                            : HandleOutcome.BUSY,
                    claim,
                    false);
        }
        runOrRollBack(connection, key, () -> work.run(connection));
        commit(connection, key);
        return new HandleResult(HandleOutcome.PROCESSED, claim, false);
    }

    private static void rollback(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** Carries what the work threw past the handler of the store's own SQL failures. */
    private static final class WorkFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WorkFailure(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> RuntimeException rethrow(Throwable failure) throws E {
        if (failure instanceof Error error) {
            throw error; // (E) erases to a cast to Exception, which would turn an Error into a ClassCastException
        }
        throw (E) failure;
    }

    /** Where this inbox reports claims, errors, late duplicates, and its adapters' deliveries. */
    public InboxMetrics metrics() {
        return metrics;
    }

    /** The logical consumer whose keys this inbox scopes. */
    public String consumer() {
        return consumer;
    }

    /** What observes this inbox's steps for tracing ({@link Builder#observer(InboxObserver)}). */
    public InboxObserver observer() {
        return observer;
    }

    /** Configures a {@link TransactionalInbox}; each setter checks its argument at once. */
    public static final class Builder {

        private final TransactionalInboxStore store;
        private final DataSource dataSource;
        private @Nullable String consumer;
        private Duration retention = Duration.ofHours(48);
        private InboxMetrics metrics = InboxMetrics.NONE;
        private InboxObserver observer = InboxObserver.NONE;

        private Builder(TransactionalInboxStore store, DataSource dataSource) {
            this.store = store;
            this.dataSource = dataSource;
        }

        /**
         * The logical consumer; required.
         *
         * @throws IllegalArgumentException if it is not a valid key part
         */
        public Builder consumer(String consumer) {
            this.consumer = InboxKey.validate(consumer, "consumer");
            return this;
        }

        /**
         * How long a processed event suppresses duplicates; default 48 hours.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder retention(Duration retention) {
            this.retention = requirePositive(retention, "retention");
            return this;
        }

        /**
         * Where to report claims and errors; default nowhere.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder metrics(InboxMetrics metrics) {
            this.metrics = requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * What observes each event's steps for tracing, as {@link Inbox.Builder#observer} does for a
         * lease-mode inbox: the claim ({@code claim}, or {@code claimAll} for a batch), each event's
         * {@code work}, and the commit as {@code complete} — the commit is what records the events
         * (one {@code complete} without an id for a batch). Default: nothing.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder observer(InboxObserver observer) {
            this.observer = requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Builds the inbox.
         *
         * @throws IllegalStateException if no consumer was set
         */
        public TransactionalInbox build() {
            if (consumer == null) {
                throw new IllegalStateException("consumer(...) must be set before build()");
            }
            return new TransactionalInbox(this, consumer);
        }
    }
}
