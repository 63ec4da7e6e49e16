package dev.inbox.tck.adapter;

import dev.inbox.InboxKey;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The kit's side of an adapter test: the handler's work, the key function, the dead-letter path
 * and the store's failures, with a ledger of what was applied that the adapter cannot touch.
 * {@link AdapterHarness} says how a harness wires these into the adapter.
 *
 * <p>The ledger counts an application when the kit's work returns: in lease mode in memory, in
 * transactional mode as a row the work inserts on the transaction's connection (table {@value
 * #LEDGER_TABLE}), so a rolled-back application leaves nothing and a committed one is counted once.
 */
public final class AdapterKit implements AutoCloseable {

    /** The message header (Kafka header, AMQP header, message attribute) that carries the producer's id. */
    public static final String ID_HEADER = "event-id";

    /** An id for which {@link #keyOf(String, String)} throws, as a user's broken key function would. */
    public static final String THROWING_ID = "!throw";

    /** The transactional ledger's table, created in {@link AdapterContract#ledgerDataSource()}'s database. */
    public static final String LEDGER_TABLE = "inbox_adapter_kit_ledger";

    private final String consumer = "adapter-kit-" + UUID.randomUUID();
    private final String run = UUID.randomUUID().toString();
    private final Duration lease;
    private final Duration backoff;
    private final @Nullable DataSource ledger;
    private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> deadLetters = new ConcurrentHashMap<>();
    private final Map<String, Plan> plans = new ConcurrentHashMap<>();
    private final FaultyStore.Faults faults = new FaultyStore.Faults();
    private final FaultyDataSource.Doomed doomed = new FaultyDataSource.Doomed();
    private final AtomicInteger unwiredCommitFaults = new AtomicInteger();
    private volatile @Nullable InboxStore store;
    private volatile boolean crashedWhereRecorded;
    private final CompletableFuture<AdapterHarness.Running> crashTarget = new CompletableFuture<>();

    private static final String UNWIRED = "adapter kit: a commit was to fail or crash its consumer, but the"
            + " transaction's connection is not one of kit.dataSource(...)'s: build the transactional inbox (and the"
            + " transaction manager, if any) on kit.dataSource(yourDataSource)";

    AdapterKit(Duration lease, Duration backoff, @Nullable DataSource ledger) throws SQLException {
        this.lease = lease;
        this.backoff = backoff;
        this.ledger = ledger;
        if (ledger != null) {
            createLedger(ledger);
        }
    }

    /**
     * Creates the ledger table if missing. Kit classes that run in parallel on one database race on
     * it, and PostgreSQL's {@code CREATE TABLE IF NOT EXISTS} is not atomic: the loser of the race
     * fails (SQL state 23505 on {@code pg_type}, or 42P07) although the table now exists, so a
     * failure is tried once more, when the winner's table is visible.
     */
    private static void createLedger(DataSource ledger) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ledger.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + LEDGER_TABLE
                        + " (run VARCHAR(64) NOT NULL, payload VARCHAR(200) NOT NULL)");
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return;
            } catch (SQLException e) {
                if (attempt == 2) {
                    throw e;
                }
            }
        }
    }

    // ---- what the harness wires into the adapter

    /** The logical consumer every inbox of this test is built for. */
    public String consumer() {
        return consumer;
    }

    /** The lease every lease-mode inbox of this test is built with. */
    public Duration lease() {
        return lease;
    }

    /** Every back-off of the adapter under test (busy, failure, requeue delay). */
    public Duration backoff() {
        return backoff;
    }

    /** {@code store} with the kit's failures: build the lease-mode inbox over it. */
    public InboxStore store(InboxStore store) {
        this.store = store;
        return new FaultyStore(store, faults);
    }

    /** {@code store} with the kit's failures: build the transactional inbox over it. */
    public TransactionalInboxStore store(TransactionalInboxStore store) {
        this.store = store;
        return new FaultyStore(store, faults);
    }

    /**
     * {@code dataSource} with the kit's failures (a commit the kit plans to fail rolls back and
     * throws): in transactional mode the inbox, and any transaction manager the adapter runs its
     * transactions in, must get their connections from it, and the handler must pass the
     * transaction's connection to {@link #apply}.
     */
    public DataSource dataSource(DataSource dataSource) {
        return FaultyDataSource.wrap(dataSource, doomed);
    }

    /**
     * The key function: the message's {@value #ID_HEADER} header as its dedup id, null when the
     * header is absent; throws for {@value #THROWING_ID}. Counts each call as one delivery of
     * {@code payload}.
     *
     * @throws IllegalStateException for the id {@value #THROWING_ID}
     */
    public @Nullable String keyOf(@Nullable String id, String payload) {
        count(deliveries, payload);
        if (THROWING_ID.equals(id)) {
            throw new IllegalStateException("adapter kit: the key function failed on " + payload);
        }
        return id;
    }

    /**
     * The handler's work: applies {@code payload} (or fails, blocks or crashes the consumer as the
     * test planned for it).
     *
     * @param transaction the transaction's connection in transactional mode, null in lease mode
     */
    public void apply(String payload, @Nullable Connection transaction) throws Exception {
        Plan plan = plans.get(payload);
        if (plan != null) {
            plan.before(payload);
        }
        if (plan != null && transaction != null && plan.atCommit() && plan.commitFaults.getAndIncrement() == 0) {
            boolean wired = plan.then == Then.FAIL_COMMIT
                    ? doomed.doom(transaction)
                    : doomed.beforeCommit(transaction, this::crashWhereRecorded);
            if (!wired) {
                unwiredCommitFaults.incrementAndGet();
            }
        }
        if (transaction == null) {
            count(applied, payload);
        } else {
            try (PreparedStatement s =
                    transaction.prepareStatement("INSERT INTO " + LEDGER_TABLE + " (run, payload) VALUES (?, ?)")) {
                s.setString(1, run);
                s.setString(2, payload);
                s.executeUpdate();
            }
        }
        if (plan != null && plan.then == Then.CRASH_AFTER && plan.crashes.getAndIncrement() == 0) {
            // The consumer may reach this before start() returned it to the test: wait for it.
            crashTarget.get(60, TimeUnit.SECONDS).crash();
            plan.crashed = true;
        }
    }

    /** The dead-letter path: the harness reports each message its adapter dead-lettered. */
    public void deadLettered(String payload) {
        count(deadLetters, payload);
    }

    // ---- what the contract reads and plans

    int applied(String payload) {
        int inMemory = get(applied, payload);
        if (ledger == null) {
            return inMemory;
        }
        try (Connection c = ledger.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT COUNT(*) FROM " + LEDGER_TABLE + " WHERE run = ? AND payload = ?")) {
            s.setString(1, run);
            s.setString(2, payload);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return inMemory + rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("adapter kit: could not read the ledger", e);
        }
    }

    int deliveries(String payload) {
        return get(deliveries, payload);
    }

    int deadLetters(String payload) {
        return get(deadLetters, payload);
    }

    /** How often the adapter claimed {@code id}, in any form (a retried claim counts again). */
    int claims(String id) {
        return get(faults.claims, id);
    }

    /** How many claim calls failed since {@link #failClaims} switched the failure on, in any form. */
    int failedClaims() {
        return faults.failedClaims.get();
    }

    void failClaims(boolean failing) {
        faults.claimsFail = failing;
    }

    void failCompletionsOf(String id) {
        faults.completionsOf.add(id);
    }

    void clearFaults() {
        faults.claimsFail = false;
        faults.completionsOf.clear();
        faults.completionOnce.clear();
    }

    /**
     * Plans the store to fail once where {@code id}'s outcome is recorded: the commit of the first
     * transaction that applies {@code payload} (transactional mode), or {@code id}'s next completion
     * (lease mode).
     */
    void failingOnceWhereRecorded(String payload, String id) {
        if (ledger == null) {
            faults.completionOnce.add(id);
        } else {
            plans.put(payload, new Plan(0, null, Then.FAIL_COMMIT, null));
        }
    }

    /**
     * Plans {@code id}'s consumer to die where its outcome is recorded, once: at {@code id}'s next
     * completion (lease mode), or at the commit of the first transaction that applies {@code payload}
     * (transactional mode), before the completion or commit itself, which then goes on (the process
     * lives on, as in {@link #crashingAfter}).
     */
    void crashingWhereRecorded(String payload, String id) {
        if (ledger == null) {
            faults.atCompletion = this::crashWhereRecorded;
            faults.crashAtCompletionOf.add(id);
        } else {
            plans.put(payload, new Plan(0, null, Then.CRASH_AT_COMMIT, null));
        }
    }

    /** True once a consumer died where an outcome was recorded, as {@link #crashingWhereRecorded} planned. */
    boolean crashedWhereRecorded() {
        if (unwiredCommitFaults.get() > 0) {
            throw new IllegalStateException(UNWIRED);
        }
        return crashedWhereRecorded;
    }

    private void crashWhereRecorded() {
        try {
            crashTarget.get(60, TimeUnit.SECONDS).crash();
        } catch (Exception e) {
            throw new IllegalStateException(
                    "adapter kit: could not crash the consumer where its outcome is recorded", e);
        }
        crashedWhereRecorded = true;
    }

    /**
     * How often the failure {@link #failingOnceWhereRecorded} planned happened.
     *
     * @throws IllegalStateException when a commit was to fail on a connection the kit cannot fail
     *     (the harness did not build the adapter's transactions on {@link #dataSource})
     */
    int recordFaults() {
        if (unwiredCommitFaults.get() > 0) {
            throw new IllegalStateException(UNWIRED);
        }
        return faults.completionsFailedOnce.get() + doomed.failedCommits.get();
    }

    void crashTarget(AdapterHarness.Running running) {
        crashTarget.complete(running);
    }

    /** Plans {@code payload}'s work to throw {@code failure} the first {@code times} times. */
    void failing(String payload, int times, Throwable failure) {
        plans.put(payload, new Plan(times, failure, Then.NOTHING, null));
    }

    /** Ends what was planned for {@code payload}: its work applies it from now on. */
    void heal(String payload) {
        plans.remove(payload);
    }

    /** Plans {@code payload}'s work to crash its consumer once, after applying it. */
    void crashingAfter(String payload) {
        plans.put(payload, new Plan(0, null, Then.CRASH_AFTER, null));
    }

    /** True once {@code payload}'s work ran and crashed its consumer, as {@link #crashingAfter} planned. */
    boolean crashedAfter(String payload) {
        Plan plan = plans.get(payload);
        return plan != null && plan.crashed;
    }

    /** Plans {@code payload}'s work to wait for {@code hold} before applying it. */
    void holding(String payload, Hold hold) {
        plans.put(payload, new Plan(0, null, Then.NOTHING, hold));
    }

    /**
     * Claims {@code id} as another delivery would, with a lease of a minute; {@link
     * Runnable#run()} of the result releases it, as that delivery failing would.
     */
    Runnable holdElsewhere(String id) {
        Elsewhere other = claimElsewhere(id);
        if (!other.claimed().isAcquired()) {
            throw new IllegalStateException("adapter kit: could not hold " + other.key() + ": " + other.claimed());
        }
        return () -> other.store().release(other.key(), other.owner());
    }

    /**
     * Delivers {@code id} as another consumer would, now: claims it with a lease of a minute and, when
     * the claim is acquired (the adapter's lease on it ended), applies {@code payload} and completes
     * the claim. Lease mode only (a transactional claim would wait on the adapter's transaction).
     *
     * @return the other delivery's claim status
     */
    ClaimStatus deliverElsewhere(String id, String payload) {
        Elsewhere other = claimElsewhere(id);
        if (other.claimed().isAcquired()) {
            count(applied, payload);
            other.store().complete(other.key(), other.owner(), Duration.ofHours(1));
        }
        return other.claimed().status();
    }

    /**
     * A claim of {@code id} by another delivery, on the real store (past the kit's faults), under
     * the consumer the adapter claims under (which may be derived from {@link #consumer()}, as the
     * Boot starter's {@code <consumer>/<group>} is).
     */
    private record Elsewhere(InboxStore store, InboxKey key, OwnerToken owner, ClaimResult claimed) {}

    /** Claims {@code id} on the real store as another delivery would, with a lease of a minute. */
    private Elsewhere claimElsewhere(String id) {
        InboxStore real = store;
        if (real == null) {
            throw new IllegalStateException("adapter kit: the harness built no store through store(...) yet");
        }
        String claimedUnder = faults.consumer;
        InboxKey key = InboxKey.of(claimedUnder == null ? consumer : claimedUnder, id);
        OwnerToken owner = OwnerToken.random();
        return new Elsewhere(real, key, owner, real.claim(ClaimRequest.of(key, owner, Duration.ofMinutes(1))));
    }

    @Override
    public void close() throws SQLException {
        if (ledger != null) {
            try (Connection c = ledger.getConnection();
                    PreparedStatement s = c.prepareStatement("DELETE FROM " + LEDGER_TABLE + " WHERE run = ?")) {
                s.setString(1, run);
                s.executeUpdate();
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            }
        }
    }

    private static void count(Map<String, AtomicInteger> counts, String payload) {
        counts.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
    }

    private static int get(Map<String, AtomicInteger> counts, String payload) {
        AtomicInteger count = counts.get(payload);
        return count == null ? 0 : count.get();
    }

    /** A handler that blocks until the test lets it go, and says when it started. */
    static final class Hold {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
    }

    /** What happens once the kit's work applied a payload. */
    private enum Then {
        NOTHING,
        /** The consumer dies at once, in the work. */
        CRASH_AFTER,
        /** The commit of the work's transaction fails, once. */
        FAIL_COMMIT,
        /** The consumer dies at the commit of the work's transaction, which then goes on. */
        CRASH_AT_COMMIT
    }

    /** What the kit's work does for one payload besides applying it. */
    private static final class Plan {
        final AtomicInteger failuresLeft;
        final @Nullable Throwable failure;
        final Then then;
        final AtomicInteger crashes = new AtomicInteger();
        volatile boolean crashed;
        final @Nullable Hold hold;
        final AtomicInteger commitFaults = new AtomicInteger();

        Plan(int failures, @Nullable Throwable failure, Then then, @Nullable Hold hold) {
            this.failuresLeft = new AtomicInteger(failures);
            this.failure = failure;
            this.then = then;
            this.hold = hold;
        }

        boolean atCommit() {
            return then == Then.FAIL_COMMIT || then == Then.CRASH_AT_COMMIT;
        }

        void before(String payload) throws Exception {
            if (hold != null) {
                hold.started.countDown();
                if (!hold.released.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("adapter kit: " + payload + " was held for a minute");
                }
            }
            if (failure != null && failuresLeft.getAndDecrement() > 0) {
                if (failure instanceof Exception exception) {
                    throw exception;
                }
                throw (Error) failure;
            }
        }
    }
}
