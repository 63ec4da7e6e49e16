package dev.inbox;

/**
 * What a broker adapter did with one delivery, as reported to {@link InboxMetrics#delivered}: one
 * outcome per delivery it handled (a message redelivered after {@code BUSY} or a failure is
 * reported again when it comes back).
 */
public enum DeliveryOutcome {
    /** The work ran and was recorded; the delivery was acknowledged or committed. */
    PROCESSED,
    /** The event was already applied; acknowledged without running the work. */
    DUPLICATE,
    /** Another delivery holds the event; this one is retried after the back-off, never acknowledged past. */
    BUSY,
    /** The work threw; the claim was released and the delivery is retried after the back-off. */
    FAILED,
    /**
     * Handed to the dead-letter path — no usable key, or failed work given up on (a recoverer, a
     * nack without requeue): never applied by this consumer. An operator looks at each.
     */
    DEAD_LETTERED,
    /** The store could not answer; the delivery is retried after the back-off, never acknowledged past. */
    STORE_FAILED
}
