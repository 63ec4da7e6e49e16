package dev.inbox.spring;

import dev.inbox.DeliveryOutcome;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a listener adapter did with the deliveries it saw: how many ran the listener, were
 * duplicates, or found their event held by another delivery. Thread-safe; the {@code record…}
 * methods are for the adapters.
 */
public final class ListenerCounts {

    private final AtomicLong processed = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();

    /** Deliveries whose listener ran and whose claim was completed (or left to the transaction). */
    public long processed() {
        return processed.get();
    }

    /** Deliveries acknowledged without their listener because their event was already applied. */
    public long duplicates() {
        return duplicates.get();
    }

    /** Times a delivery was sent back, or waited, because another delivery held its event. */
    public long busy() {
        return busy.get();
    }

    /**
     * Counts one delivery that came to {@code outcome} ({@code PROCESSED}, {@code DUPLICATE} or
     * {@code BUSY}; the others are the container's own error handling) and reports it to {@code
     * inbox}'s metrics ({@link SpringInbox#delivered}), under the consumer it claimed with.
     *
     * @throws IllegalArgumentException if {@code outcome} is not one a listener adapter counts
     */
    public void record(DeliveryOutcome outcome, SpringInbox inbox) {
        switch (outcome) {
            case PROCESSED -> recordProcessed();
            case DUPLICATE -> recordDuplicate();
            case BUSY -> recordBusy();
            default -> throw new IllegalArgumentException("a listener adapter does not count " + outcome);
        }
        inbox.delivered(outcome);
    }

    /** Counts one delivery whose listener ran. */
    public void recordProcessed() {
        processed.incrementAndGet();
    }

    /** Counts one duplicate. */
    public void recordDuplicate() {
        duplicates.incrementAndGet();
    }

    /** Counts one delivery that found its event held. */
    public void recordBusy() {
        busy.incrementAndGet();
    }

    @Override
    public String toString() {
        return "ListenerCounts[processed=" + processed + ", duplicates=" + duplicates + ", busy=" + busy + "]";
    }
}
