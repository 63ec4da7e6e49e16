package dev.inbox.spi;

import java.util.List;
import java.util.TreeMap;

/**
 * Builds one page of {@link InboxAdmin#stuck(StuckQuery)} from records met in any order, for
 * stores that scan (a keyspace, a table, a map) and filter on the client: it keeps the {@link
 * StuckQuery#limit()} lowest ids that match, so its memory is bounded by the page, not the scan.
 * Not thread-safe.
 */
public final class StuckPage {

    private final StuckQuery query;
    private final TreeMap<String, RecordView> lowest = new TreeMap<>(StuckQuery.ID_ORDER);

    /**
     * An empty page of {@code query}.
     *
     * @throws IllegalArgumentException if {@code query} is null
     */
    public StuckPage(StuckQuery query) {
        this.query = InboxArguments.requireNonNull(query, "query");
    }

    /** Keeps {@code record} if it matches the query at {@code nowMillis} (the store's clock) and is among the lowest ids. */
    public void offer(RecordView record, long nowMillis) {
        if (!query.matches(record, nowMillis)) {
            return;
        }
        lowest.put(record.key().id(), record);
        if (lowest.size() > query.limit()) {
            lowest.pollLastEntry();
        }
    }

    /** The page: the matching records kept, in id order. */
    public List<RecordView> records() {
        return List.copyOf(lowest.values());
    }
}
