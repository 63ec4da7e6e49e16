package dev.inbox.benchmarks.storm;

/** What one delivery came to, as the simulated broker sees it. */
enum Outcome {
    /** Applied and acknowledged. */
    PROCESSED,
    /** Already applied: acknowledged without work. */
    DUPLICATE,
    /** Another delivery holds the event: redeliver later. */
    BUSY,
    /** The work failed: redeliver. */
    FAILED,
    /** The consumer crashed before acknowledging: redeliver after the visibility timeout. */
    CRASHED
}
