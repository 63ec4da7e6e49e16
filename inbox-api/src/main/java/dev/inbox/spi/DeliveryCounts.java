package dev.inbox.spi;

import dev.inbox.Deliveries;
import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxMetrics;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * For broker adapters: counts each delivery's {@link DeliveryOutcome} and reports it to the inbox's
 * {@link InboxMetrics#delivered}, so every adapter counts the same way and an operator sees the
 * same meter whichever broker delivered. Thread-safe.
 */
public final class DeliveryCounts {

    private final String consumer;
    private final InboxMetrics metrics;
    private final Map<DeliveryOutcome, LongAdder> counts = new EnumMap<>(DeliveryOutcome.class);

    /**
     * Counts for {@code consumer}, reported to {@code metrics}.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public DeliveryCounts(String consumer, InboxMetrics metrics) {
        this.consumer = InboxArguments.requireNonNull(consumer, "consumer");
        this.metrics = InboxArguments.requireNonNull(metrics, "metrics");
        for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
            counts.put(outcome, new LongAdder());
        }
    }

    /** Counts one delivery that came to {@code outcome}, and reports it. */
    public void record(DeliveryOutcome outcome) {
        record(outcome, 1);
    }

    /** Counts {@code deliveries} deliveries that came to {@code outcome}, and reports each. */
    public void record(DeliveryOutcome outcome, int deliveries) {
        counts.get(outcome).add(deliveries);
        for (int i = 0; i < deliveries; i++) {
            metrics.delivered(consumer, outcome);
        }
    }

    /** How many deliveries came to {@code outcome} so far. */
    public long count(DeliveryOutcome outcome) {
        return counts.get(outcome).sum();
    }

    /** Every count so far, as an adapter's {@code counts()} returns them. */
    public Deliveries snapshot() {
        return new Deliveries(
                count(DeliveryOutcome.PROCESSED),
                count(DeliveryOutcome.DUPLICATE),
                count(DeliveryOutcome.BUSY),
                count(DeliveryOutcome.FAILED),
                count(DeliveryOutcome.DEAD_LETTERED),
                count(DeliveryOutcome.STORE_FAILED));
    }
}
