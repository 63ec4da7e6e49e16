package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.OwnerToken;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rules T1–T3 and E6 for stores with a transactional mode: the claim joins the caller's JDBC
 * transaction, and a consumer that hangs or dies inside that transaction never makes another
 * delivery of the key wait without bound. The kit keeps its business rows in a table of its own,
 * {@value #BUSINESS_TABLE}, created with portable SQL in the store's database.
 */
public abstract class TransactionalStoreContract {

    /** The kit's business table: one row per applied event. */
    public static final String BUSINESS_TABLE = BusinessTable.NAME;

    /** The store under test. */
    protected TransactionalInboxStore store;

    private String consumer;

    /** Returns a new store on {@link #dataSource()} whose records stay {@code grace} past expiry. */
    protected abstract TransactionalInboxStore createStore(Duration grace) throws Exception;

    /** The database of the store, where the kit also creates its business table. */
    protected abstract DataSource dataSource();

    /**
     * The longest a transactional claim of the store from {@link #createStore(Duration)} waits for
     * a key that another open transaction holds, before it gives up with a retryable {@link
     * InboxStoreException} (its lock wait bound, as configured). Rule E6 allows this plus {@link
     * #lockWaitSlack()}.
     */
    protected abstract Duration lockWaitBound();

    /** What rule E6 allows past {@link #lockWaitBound()} for the answer to arrive; default 5 s. */
    protected Duration lockWaitSlack() {
        return Duration.ofSeconds(5);
    }

    /** How many transactions race on one key in rule T2. */
    protected int raceThreads() {
        return 4;
    }

    /** How many keys the transactions of rule T2 race on. */
    protected int raceRounds() {
        return 50;
    }

    @BeforeEach
    void open() throws Exception {
        consumer = TckSupport.freshConsumer();
        store = createStore(Duration.ofMinutes(10));
        BusinessTable.create(dataSource());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    @DisplayName("T1 a rolled-back transactional claim leaves no record")
    void t1_rollbackLeavesNoRecord() throws Exception {
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t1"), long_(), null)).isEqualTo(ClaimResult.acquired());
            c.rollback();
        }
        assertThat(store.claim(ClaimRequest.of(key("t1"), OwnerToken.random(), long_())))
                .as("a claim after the rollback")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("T1 a committed transactional claim suppresses duplicates in both modes")
    void t1_commitSuppressesDuplicates() throws Exception {
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t1-commit"), long_(), "fp"))
                    .isEqualTo(ClaimResult.acquired());
            c.commit();
        }
        assertThat(store.claim(ClaimRequest.of(key("t1-commit"), OwnerToken.random(), long_())
                        .withFingerprint("fp")))
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH));
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t1-commit"), long_(), "other"))
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MISMATCH));
            c.rollback();
        }
    }

    @Test
    @DisplayName("S1 a result kept in the claim's transaction is carried by every DUPLICATE once committed, and"
            + " gone with a rollback")
    void s1_resultKeptInTheTransaction() throws Exception {
        byte[] result = {0, '\n', (byte) 0xC3, ' ', (byte) 0xff};
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("s1-commit"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            store.keepResultInTransaction(c, key("s1-commit"), result);
            c.commit();
        }
        assertThat(store.claim(ClaimRequest.of(key("s1-commit"), OwnerToken.random(), long_())))
                .as("a lease-mode claim after the commit")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED, result));
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("s1-commit"), long_(), null))
                    .as("a transactional claim after the commit")
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED, result));
            assertThatThrownBy(() -> store.keepResultInTransaction(c, key("s1-commit"), new byte[] {1}))
                    .as("keeping another result after a DUPLICATE")
                    .isInstanceOf(InboxStoreException.class);
            c.rollback();
        }
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("s1-rollback"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            store.keepResultInTransaction(c, key("s1-rollback"), result);
            assertThatThrownBy(() ->
                            store.keepResultInTransaction(c, key("s1-rollback"), new byte[store.maxResultBytes() + 1]))
                    .as("S2: a result over the limit, before any I/O")
                    .isInstanceOf(IllegalArgumentException.class);
            c.rollback();
        }
        assertThat(store.claim(ClaimRequest.of(key("s1-rollback"), OwnerToken.random(), long_())))
                .as("rolled back with its claim")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("T2 a concurrent transaction waits, then sees DUPLICATE after commit")
    void t2_secondTransactionSeesDuplicateAfterCommit() throws Exception {
        assertThat(secondTransactionAfter(true)).isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    @DisplayName("T2 a concurrent transaction waits, then is ACQUIRED after rollback")
    void t2_secondTransactionAcquiresAfterRollback() throws Exception {
        assertThat(secondTransactionAfter(false)).isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("T2 racing transactions on one key: exactly one commits the claim")
    void t2_racingTransactionsHaveOneWinner() throws Exception {
        int threads = raceThreads();
        List<List<ClaimResult>> rounds = Race.race(
                threads,
                raceRounds(),
                (round, thread) -> {
                    try (Connection c = transaction()) {
                        ClaimResult result = store.claimInTransaction(c, key("t2-race-" + round), long_(), null);
                        if (result.isAcquired()) {
                            insertBusinessRow(c, consumer + "/t2-race-" + round + "/" + thread);
                        }
                        c.commit();
                        return result;
                    }
                },
                ClaimResult[]::new);
        for (int r = 0; r < rounds.size(); r++) {
            assertThat(Race.count(rounds.get(r), ClaimResult.acquired()))
                    .as("transactions that acquired key %d: %s", r, rounds.get(r))
                    .isEqualTo(1);
            assertThat(countBusinessRows(consumer + "/t2-race-" + r + "/%")).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("T3 the claim and the business write commit together")
    void t3_claimAndBusinessWriteCommitTogether() throws Exception {
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t3"), long_(), null)).isEqualTo(ClaimResult.acquired());
            insertBusinessRow(c, consumer + "/t3");
            c.commit();
        }
        assertThat(countBusinessRows(consumer + "/t3")).isEqualTo(1);
        assertThat(store.claim(ClaimRequest.of(key("t3"), OwnerToken.random(), long_()))
                        .status())
                .isEqualTo(ClaimStatus.DUPLICATE);

        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t3-rolled-back"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            insertBusinessRow(c, consumer + "/t3-rolled-back");
            c.rollback();
        }
        assertThat(countBusinessRows(consumer + "/t3-rolled-back")).isZero();
        assertThat(store.claim(ClaimRequest.of(key("t3-rolled-back"), OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("T3 the transaction stays usable after a DUPLICATE answer")
    void t3_transactionUsableAfterDuplicate() throws Exception {
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t3-dup"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            c.commit();
        }
        try (Connection c = transaction()) {
            insertBusinessRow(c, consumer + "/t3-before");
            assertThat(store.claimInTransaction(c, key("t3-dup"), long_(), null).status())
                    .isEqualTo(ClaimStatus.DUPLICATE);
            insertBusinessRow(c, consumer + "/t3-after");
            c.commit();
        }
        assertThat(countBusinessRows(consumer + "/t3-before")).isEqualTo(1);
        assertThat(countBusinessRows(consumer + "/t3-after"))
                .as("written after the DUPLICATE")
                .isEqualTo(1);
    }

    @Test
    @DisplayName("T3 a lease-mode claim of another owner makes the transactional claim BUSY")
    void t3_liveLeaseIsBusy() throws Exception {
        assertThat(store.claim(ClaimRequest.of(key("t3-lease"), OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t3-lease"), long_(), null))
                    .isEqualTo(ClaimResult.busy());
            c.rollback();
        }
    }

    @Test
    @DisplayName("T4 a batch of transactional claims answers as one claim per key, inside the caller's transaction")
    void t4_batchAnswersAsOneClaimPerKey() throws Exception {
        assertThat(store.claim(ClaimRequest.of(key("t4-lease"), OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
        try (Connection c = transaction()) {
            assertThat(store.claimInTransaction(c, key("t4-done"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            c.commit();
        }
        List<InboxKey> batch = List.of(key("t4-new"), key("t4-done"), key("t4-new"), key("t4-lease"), key("t4-other"));
        try (Connection c = transaction()) {
            assertThat(store.claimAllInTransaction(c, batch, long_()))
                    .extracting(ClaimResult::status)
                    .as("new, committed, repeated, held by a lease, new")
                    .containsExactly(
                            ClaimStatus.ACQUIRED,
                            ClaimStatus.DUPLICATE,
                            ClaimStatus.DUPLICATE,
                            ClaimStatus.BUSY,
                            ClaimStatus.ACQUIRED);
            assertThat(store.claimAllInTransaction(c, List.of(), long_())).isEmpty();
            c.rollback();
        }
        List<InboxKey> rolledBack = List.of(key("t4-other"), key("t4-new"));
        try (Connection c = transaction()) {
            assertThat(store.claimAllInTransaction(c, rolledBack, long_()))
                    .as("claims of a rolled-back batch: gone")
                    .allMatch(ClaimResult::isAcquired);
            c.commit();
        }
        try (Connection c = transaction()) {
            assertThat(store.claimAllInTransaction(c, rolledBack, long_()))
                    .extracting(ClaimResult::status)
                    .as("claims of a committed batch")
                    .containsOnly(ClaimStatus.DUPLICATE);
            c.rollback();
        }
    }

    @Test
    @DisplayName("E1 the transactional claim rejects bad input and auto-commit connections")
    void e1_transactionalBadInput() throws Exception {
        try (Connection c = transaction()) {
            assertThatThrownBy(() -> store.claimInTransaction(null, key("e1"), long_(), null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.claimInTransaction(c, null, long_(), null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.claimInTransaction(c, key("e1"), Duration.ZERO, null))
                    .isInstanceOf(IllegalArgumentException.class);
            c.rollback();
        }
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> store.claimInTransaction(c, key("e1"), long_(), null))
                    .as("a claim outside a transaction would commit on its own")
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    @DisplayName("E6 a claim waiting on a transaction that hangs ends within the lock wait bound, retryable")
    void e6_hungTransactionBoundsTheWait() throws Exception {
        try (Connection hung = transaction()) {
            assertThat(store.claimInTransaction(hung, key("e6-hung"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            insertBusinessRow(hung, consumer + "/e6-hung/first");
            long started = System.nanoTime();
            CompletableFuture<Object> waiter = CompletableFuture.supplyAsync(() -> claimAndApply("e6-hung", "second"));
            Object outcome = waitFor(waiter, "a claim behind a transaction that never ends");
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            assertThat(outcome)
                    .as(
                            "while the first transaction is open, a second delivery can know nothing: it must fail,"
                                    + " not answer (waited %s)",
                            waited)
                    .isInstanceOf(InboxStoreException.class);
            assertThat(((InboxStoreException) outcome).isRetryable())
                    .as("a lock wait that timed out is retryable: %s", outcome)
                    .isTrue();
            hung.commit();
        }
        assertThat(countBusinessRows(consumer + "/e6-hung/%"))
                .as("the hung transaction's work, once it commits, and nothing of the bounded one")
                .isEqualTo(1);
        assertThat(claimAndApply("e6-hung", "third"))
                .as("a delivery after the hung transaction committed")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    @DisplayName("E6 a consumer killed inside its transaction leaves the key to the next delivery, applied once")
    void e6_killedConsumerLeavesTheKeyToTheNextDelivery() throws Exception {
        Connection killed = transaction();
        try {
            assertThat(store.claimInTransaction(killed, key("e6-killed"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            insertBusinessRow(killed, consumer + "/e6-killed/first");
            CompletableFuture<Object> waiter =
                    CompletableFuture.supplyAsync(() -> claimAndApply("e6-killed", "second"));
            TckSupport.pause(Duration.ofMillis(200));
            // What the server sees when a consumer process dies: its socket closes, no rollback is sent.
            killed.abort(Runnable::run);
            closeQuietly(killed); // a no-op after abort for most drivers; an embedded database needs it
            Object outcome = waitFor(waiter, "a claim behind a consumer that died");
            if (outcome instanceof InboxStoreException e && e.isRetryable()) {
                outcome = claimAndApply("e6-killed", "retried"); // the bound ended the wait first: redeliver
            }
            assertThat(outcome).as("the next delivery after the holder died").isEqualTo(ClaimResult.acquired());
        } finally {
            closeQuietly(killed);
        }
        assertThat(countBusinessRows(consumer + "/e6-killed/%"))
                .as("the dead consumer's write is gone and the next delivery's stands: applied once")
                .isEqualTo(1);
        assertThat(claimAndApply("e6-killed", "late"))
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    /** Closes a connection that was aborted: its pool or driver may complain that it is gone. */
    private static void closeQuietly(Connection aborted) {
        try {
            aborted.close();
        } catch (SQLException expected) {
            // already closed by the abort
        }
    }

    private Object claimAndApply(String id, String delivery) {
        return BusinessTable.claimAndApply(store, dataSource(), key(id), delivery);
    }

    private Object waitFor(CompletableFuture<Object> waiter, String what) throws Exception {
        return waitFor(waiter, what, lockWaitBound(), lockWaitSlack());
    }

    /** The outcome of {@code waiter}, which must come within the lock wait bound and its slack. */
    static Object waitFor(CompletableFuture<Object> waiter, String what, Duration bound, Duration slack)
            throws Exception {
        Duration limit = bound.plus(slack);
        try {
            return waiter.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " still waits after " + limit + " (lock wait bound " + bound
                    + " + slack): a consumer that hangs inside its transaction would stall every delivery of the key");
        }
    }

    private ClaimResult secondTransactionAfter(boolean commitFirst) throws Exception {
        try (Connection first = transaction()) {
            assertThat(store.claimInTransaction(first, key("t2"), long_(), null))
                    .isEqualTo(ClaimResult.acquired());
            CompletableFuture<ClaimResult> second = CompletableFuture.supplyAsync(() -> {
                try (Connection c = transaction()) {
                    ClaimResult result = store.claimInTransaction(c, key("t2"), long_(), null);
                    c.commit();
                    return result;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            TckSupport.pause(Duration.ofMillis(300));
            assertThat(second).as("the second transaction waits for the first").isNotDone();
            if (commitFirst) {
                first.commit();
            } else {
                first.rollback();
            }
            return second.get(30, TimeUnit.SECONDS);
        }
    }

    private Connection transaction() throws SQLException {
        Connection c = dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    private static void insertBusinessRow(Connection c, String id) throws SQLException {
        BusinessTable.insert(c, id);
    }

    private int countBusinessRows(String pattern) throws SQLException {
        return BusinessTable.count(dataSource(), pattern);
    }

    private InboxKey key(String id) {
        return InboxKey.of(consumer, id);
    }

    private static Duration long_() {
        return Duration.ofMinutes(10);
    }
}
