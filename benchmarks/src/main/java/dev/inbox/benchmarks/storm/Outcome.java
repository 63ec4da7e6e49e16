package dev.inbox.benchmarks.storm;

/** What one delivery came to, as the simulated broker sees it. */
enum Outcome {
    /** Applied and acknowledged. */
    PROCESSED,
    /**
     * Applied and acknowledged, but its lease ended while the work ran: another delivery may have
     * taken the event over and applied it too.
     */
    PROCESSED_LEASE_LOST,
    /** Already applied: acknowledged without work. */
    DUPLICATE,
    /** Another delivery holds the event: redeliver later. */
    BUSY,
    /** The work failed: redeliver. */
    FAILED,
    /**
     * The work ran but its completion could not be recorded (the store failed): redeliver; the
     * claim holds until its lease ends, and then a redelivery applies the work again.
     */
    UNRECORDED,
    /** The consumer crashed before acknowledging: redeliver after the visibility timeout. */
    CRASHED
}
