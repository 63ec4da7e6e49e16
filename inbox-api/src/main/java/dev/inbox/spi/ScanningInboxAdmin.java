package dev.inbox.spi;

import dev.inbox.InboxKey;
import java.util.List;

/**
 * An {@link InboxAdmin} for stores that cannot ask their backend for one consumer's stuck records
 * or counts, and instead scan (a keyspace, a table, a map): {@link #stuck(StuckQuery)} and {@link
 * #count(String)} check their arguments, then visit every record of the consumer that {@link
 * #scan(String, String, Visitor)} meets, keeping a bounded page ({@link StuckPage}) or a tally;
 * {@link #releaseLease(InboxKey)} and {@link #forget(InboxKey)} check theirs, then {@link
 * #delete(String, InboxKey, boolean)}.
 */
public abstract class ScanningInboxAdmin implements InboxAdmin {

    /** What a scan hands each record to. */
    @FunctionalInterface
    protected interface Visitor {
        /**
         * One record of the consumer.
         *
         * @param record the record, its state judged at {@code nowMillis}
         * @param nowMillis the store's clock when the record was read, in epoch milliseconds
         */
        void visit(RecordView record, long nowMillis);
    }

    /** A subclass's constructor. */
    protected ScanningInboxAdmin() {}

    /**
     * Visits every record of {@code consumer} the store holds.
     *
     * @param operation names the operation in error messages
     * @throws dev.inbox.InboxStoreException if the store could not answer
     */
    protected abstract void scan(String operation, String consumer, Visitor visitor);

    /**
     * Deletes the record of {@code key} in one atomic step if it counts (is not past expiry +
     * grace) and, when {@code heldOnly}, is IN_PROGRESS.
     *
     * @param operation names the operation in error messages
     * @return true when a record was deleted
     * @throws dev.inbox.InboxStoreException if the store could not answer
     */
    protected abstract boolean delete(String operation, InboxKey key, boolean heldOnly);

    /**
     * Throws when the store is closed.
     *
     * @throws IllegalStateException if the store is closed
     */
    protected abstract void ensureOpen();

    @Override
    public boolean releaseLease(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        ensureOpen();
        return delete("release of the lease of " + key, key, true);
    }

    @Override
    public boolean forget(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        ensureOpen();
        return delete("forgetting " + key, key, false);
    }

    @Override
    public List<RecordView> stuck(StuckQuery query) {
        InboxArguments.requireNonNull(query, "query");
        ensureOpen();
        StuckPage page = new StuckPage(query);
        scan("listing of the stuck records of " + query.consumer(), query.consumer(), page::offer);
        return page.records();
    }

    @Override
    public RecordCounts count(String consumer) {
        InboxKey.validate(consumer, "consumer");
        ensureOpen();
        RecordCounts[] counts = {RecordCounts.NONE};
        scan(
                "count of the records of " + consumer,
                consumer,
                (record, now) -> counts[0] = counts[0].plus(record.state()));
        return counts[0];
    }
}
