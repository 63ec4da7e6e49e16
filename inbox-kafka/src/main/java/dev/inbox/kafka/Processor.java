package dev.inbox.kafka;

import dev.inbox.InboxStoreException;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * How {@link KafkaInboxLoop} claims and applies a poll's records: lease mode ({@link LeaseProcessor})
 * or transactional mode ({@link TransactionalProcessor}), with the types they share with the loop.
 */
interface Processor<K, V> {
    /** Fails with {@link IllegalArgumentException} when the inbox would refuse {@code id}. */
    void validate(String id);

    Batch<K, V> claim(List<Item<K, V>> items);

    /**
     * Applies one partition's records (each with a key) in one transaction, when this
     * processor batches: how many were applied and skipped as duplicates, in order, before the
     * first BUSY one (if any). Null when it does not batch, or when the work failed and the
     * transaction was rolled back: the records are then applied one by one.
     *
     * @throws InboxStoreException if the store failed (nothing of the partition was applied)
     */
    default @Nullable SpanOutcome applyAll(List<Item<K, V>> items) {
        return null;
    }

    /** This processor, completing a poll's claims together ({@link KafkaInboxLoop.Builder#completePerPoll()}). */
    default Processor<K, V> completingPerPoll() {
        throw new IllegalStateException("completePerPoll() is for lease mode: a transactional loop commits each"
                + " claim in the transaction of its work");
    }

    /** What became of one record. */
    enum Outcome {
        DONE,
        DUPLICATE,
        BUSY,
        FAILED
    }

    /** A record with its dedup id, or why it has none. */
    record Item<K, V>(
            ConsumerRecord<K, V> record,
            @Nullable String id,
            @Nullable IllegalArgumentException keyProblem) {}

    /** The handler threw: carries what it threw. */
    static final class WorkFailed extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Exception work;

        WorkFailed(Exception work) {
            super(work);
            this.work = work;
        }
    }

    /** What a partition's one transaction did: its first {@code processed + duplicates} records are done. */
    record SpanOutcome(int processed, int duplicates) {}

    /** One poll's claims. */
    interface Batch<K, V> {
        /** Applies item {@code index}: DONE (applied), DUPLICATE or BUSY. */
        Outcome run(int index) throws WorkFailed;

        /** Gives up item {@code index} without applying it (its partition stopped before it). */
        void abandon(int index);

        /**
         * Records the poll's work as done where the processor completes per poll, before the poll's
         * offsets are committed; a store that cannot record it is logged (the work ran).
         */
        default void finish() {}
    }
}
