package dev.inbox.benchmarks.storm;

import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Lease mode on any store: {@link Inbox#handle} with an in-memory ledger. A crash is a consumer
 * that claimed through the store and died, so its lease must expire before a redelivery proceeds.
 */
final class LeaseTarget implements StormTarget {

    private final String name;
    private final InboxStore store;
    private final String consumer;
    private final Duration lease;
    private final Duration retention;
    private final boolean perPoll;
    private final InboxMetrics metrics;
    private final Inbox inbox;
    private final Inbox brokerInbox;
    private volatile IntConsumer unrecorded = event -> {};
    private final AtomicIntegerArray ledger;
    private final LongSupplier records;

    LeaseTarget(String name, InboxStore store, String consumer, StormConfig config, InboxMetrics metrics) {
        this(name, store, consumer, config, metrics, () -> -1);
    }

    /** With {@code records} counting what the store holds for this run (or -1), for soak samples. */
    LeaseTarget(
            String name,
            InboxStore store,
            String consumer,
            StormConfig config,
            InboxMetrics metrics,
            LongSupplier records) {
        this.name = name;
        this.records = records;
        this.store = store;
        this.consumer = consumer;
        this.lease = config.lease();
        this.metrics = metrics;
        this.retention = config.retention();
        this.perPoll = config.mode().equals(StormConfig.LEASE_BATCH);
        this.inbox = inboxOver(store);
        this.brokerInbox = inboxOver(new CutOffStore(store, () -> false, this::refused));
        this.ledger = new AtomicIntegerArray(config.events());
    }

    private Inbox inboxOver(InboxStore over) {
        return Inbox.builder(over)
                .consumer(consumer)
                .lease(lease)
                .retention(retention)
                .metrics(metrics)
                .build();
    }

    @Override
    public String describe() {
        return name + (perPoll ? " (lease mode, completed per poll)" : " (lease mode)");
    }

    /** True for {@code --mode lease-batch}: the broker's loop completes a poll's claims together. */
    boolean completesPerPoll() {
        return perPoll;
    }

    /**
     * An inbox for one consumer that can die: once {@code dead} says so, its store answers nothing
     * (every call fails as an unreachable server would), so a crashed consumer completes and releases
     * nothing more — what a killed process does — even while the adapter's own code runs on.
     */
    Inbox inbox(BooleanSupplier dead) {
        return inboxOver(new CutOffStore(store, dead, this::refused));
    }

    /**
     * Tells {@code cause} of each event whose completion, through {@link #inbox()} or {@link
     * #inbox(BooleanSupplier)}, the store refused because the lease had lapsed and another delivery
     * had taken the event over: the work ran, so the event may be applied once more, and that extra
     * application is the lost lease's. A broker adapter reports a lost lease only to its metrics,
     * without the event; {@link #deliver} reports it in its outcome instead.
     */
    void chargeUnrecordedTo(IntConsumer cause) {
        this.unrecorded = cause;
    }

    private void refused(InboxKey key) {
        String id = key.id(); // every storm event's id ends in e<event> (see the drivers)
        unrecorded.accept(Integer.parseInt(id.substring(id.lastIndexOf('e') + 1)));
    }

    @Override
    public boolean closesCrashWindow() {
        return false;
    }

    @Override
    public Outcome deliver(int event, String id, Fault fault) {
        if (fault == Fault.CRASH_BEFORE_WORK || fault == Fault.CRASH_AFTER_WORK) {
            long start = System.nanoTime();
            ClaimResult claim = store.claim(ClaimRequest.of(InboxKey.of(consumer, id), OwnerToken.random(), lease));
            metrics.claimed(consumer, claim, System.nanoTime() - start);
            switch (claim.status()) {
                case DUPLICATE:
                    return Outcome.DUPLICATE;
                case BUSY:
                    return Outcome.BUSY;
                default:
                    if (fault == Fault.CRASH_AFTER_WORK) {
                        ledger.incrementAndGet(event);
                    }
                    return Outcome.CRASHED; // never completed, never released
            }
        }
        boolean[] worked = {false};
        try {
            HandleResult result = inbox.handle(id, () -> {
                if (fault == Fault.FAIL_WORK) {
                    throw new SimulatedFailure();
                }
                ledger.incrementAndGet(event);
                worked[0] = true;
            });
            return switch (result.outcome()) {
                case PROCESSED -> result.leaseLost() ? Outcome.PROCESSED_LEASE_LOST : Outcome.PROCESSED;
                case DUPLICATE -> Outcome.DUPLICATE;
                case BUSY -> Outcome.BUSY;
            };
        } catch (SimulatedFailure e) {
            return Outcome.FAILED;
        } catch (InboxStoreException e) {
            if (worked[0]) {
                return Outcome.UNRECORDED; // applied, but the store did not record the completion
            }
            throw e;
        }
    }

    /** The inbox the broker adapters run deliveries through. */
    Inbox inbox() {
        return brokerInbox;
    }

    /** Counts one application of {@code event} in the ledger. */
    void record(int event) {
        ledger.incrementAndGet(event);
    }

    @Override
    public long purge() {
        return store.purge();
    }

    @Override
    public long storedRecords() {
        return records.getAsLong();
    }

    @Override
    public int[] appliedCounts(int events) {
        int[] counts = new int[events];
        for (int i = 0; i < events; i++) {
            counts[i] = ledger.get(i);
        }
        return counts;
    }

    @Override
    public void close() {
        store.close();
    }
}
