package dev.inbox.benchmarks.storm;

/** What goes wrong with one delivery. */
enum Fault {
    /** Nothing: the delivery is handled normally. */
    NONE,
    /** The work throws: the claim is released (or rolled back) and the broker redelivers. */
    FAIL_WORK,
    /** The consumer dies after claiming, before the work: nothing is released. */
    CRASH_BEFORE_WORK,
    /** The consumer dies after the work, before completing (or committing). */
    CRASH_AFTER_WORK
}
