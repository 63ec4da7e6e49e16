package dev.inbox.benchmarks.storm;

/** One way of consuming the storm's deliveries: a store in lease mode, or in transactional mode. */
interface StormTarget extends AutoCloseable {

    /** A short description for the report, such as {@code postgres (transactional)}. */
    String describe();

    /**
     * True when a crash after the work cannot leave the effect applied without its record (the
     * transactional mode); false for lease mode, whose crash-after-work window allows a second
     * application.
     */
    boolean closesCrashWindow();

    /**
     * Handles one delivery of {@code event}, whose dedup id is {@code id}, with {@code fault}
     * injected, reporting claims to the metrics the target was opened with.
     */
    Outcome deliver(int event, String id, Fault fault) throws Exception;

    /** Removes expired records from the store; returns how many. */
    long purge();

    /** How many records the store holds for this run, or -1 when the store cannot say. */
    default long storedRecords() {
        return -1;
    }

    /** How many times each event's effect was applied (durably, for a database ledger). */
    int[] appliedCounts(int events) throws Exception;

    @Override
    void close() throws Exception;
}
