package dev.inbox;

import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * What an operator does to a store, through its {@link InboxAdmin}: the reads pass straight through;
 * the two writes, which override what the claims decided, are logged (logger {@code
 * dev.inbox.InboxOperations}, level WARNING) and counted, here and in {@link
 * InboxMetrics#adminAction(String, String, boolean)}. The Actuator endpoint and the command-line
 * tool go through it.
 *
 * <pre>{@code
 * InboxOperations ops = InboxOperations.of(store);
 * ops.inspect(InboxKey.of("billing", "order-42")).ifPresent(System.out::println);
 * ops.stuck(StuckQuery.of("billing").withOverdue(Duration.ofMinutes(5)));
 * ops.releaseLease(InboxKey.of("billing", "order-42")); // its owner is known dead
 * }</pre>
 *
 * <p>Thread-safe; it owns nothing, so closing the store is the caller's business.
 */
public final class InboxOperations {

    private static final System.Logger LOG = System.getLogger(InboxOperations.class.getName());

    private final InboxAdmin admin;
    private final InboxMetrics metrics;
    private final LongAdder leasesReleased = new LongAdder();
    private final LongAdder forgotten = new LongAdder();

    private InboxOperations(InboxAdmin admin, InboxMetrics metrics) {
        this.admin = admin;
        this.metrics = metrics;
    }

    /**
     * The operations on {@code store}.
     *
     * @throws IllegalArgumentException if {@code store} is null
     * @throws UnsupportedOperationException if the store offers no admin operations
     * @throws IllegalStateException if the store is closed
     */
    public static InboxOperations of(InboxStore store) {
        return of(store, InboxMetrics.NONE);
    }

    /**
     * The operations on {@code store}, reporting the writes to {@code metrics}.
     *
     * @throws IllegalArgumentException if an argument is null
     * @throws UnsupportedOperationException if the store offers no admin operations
     * @throws IllegalStateException if the store is closed
     */
    public static InboxOperations of(InboxStore store, InboxMetrics metrics) {
        InboxArguments.requireNonNull(store, "store");
        InboxArguments.requireNonNull(metrics, "metrics");
        return new InboxOperations(store.admin(), metrics);
    }

    /** See {@link InboxAdmin#inspect(InboxKey)}. */
    public Optional<RecordView> inspect(InboxKey key) {
        return admin.inspect(key);
    }

    /** See {@link InboxAdmin#stuck(StuckQuery)}. */
    public List<RecordView> stuck(StuckQuery query) {
        return admin.stuck(query);
    }

    /** See {@link InboxAdmin#count(String)}. */
    public RecordCounts count(String consumer) {
        return admin.count(consumer);
    }

    /**
     * Ends the lease of {@code key} whoever holds it ({@link InboxAdmin#releaseLease(InboxKey)}),
     * logged and counted.
     */
    public boolean releaseLease(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        boolean released = admin.releaseLease(key);
        if (released) {
            leasesReleased.increment();
            LOG.log(
                    Level.WARNING,
                    "released the lease of {0} by an operator: its owner is fenced, and the next"
                            + " delivery applies the event",
                    key);
        } else {
            LOG.log(Level.INFO, "no lease of {0} to release: the key is absent or completed", key);
        }
        metrics.adminAction(key.consumer(), "release-lease", released);
        return released;
    }

    /** Deletes the record of {@code key} ({@link InboxAdmin#forget(InboxKey)}), logged and counted. */
    public boolean forget(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        boolean forgot = admin.forget(key);
        if (forgot) {
            forgotten.increment();
            LOG.log(Level.WARNING, "forgot {0} by an operator: its next delivery will be applied again", key);
        } else {
            LOG.log(Level.INFO, "nothing to forget for {0}: the store holds no record of it", key);
        }
        metrics.adminAction(key.consumer(), "forget", forgot);
        return forgot;
    }

    /** How many leases {@link #releaseLease(InboxKey)} ended through this object. */
    public long leasesReleased() {
        return leasesReleased.sum();
    }

    /** How many records {@link #forget(InboxKey)} deleted through this object. */
    public long forgotten() {
        return forgotten.sum();
    }
}
