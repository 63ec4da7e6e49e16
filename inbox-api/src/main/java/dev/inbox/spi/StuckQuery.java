package dev.inbox.spi;

import dev.inbox.InboxKey;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which stuck records {@link InboxAdmin#stuck(StuckQuery)} lists: one consumer's IN_PROGRESS
 * records whose lease ended at least {@code overdue} ago, in id order, a page at a time.
 *
 * <pre>{@code
 * StuckQuery query = StuckQuery.of("billing").withOverdue(Duration.ofMinutes(5));
 * for (List<RecordView> page = admin.stuck(query); ; page = admin.stuck(query)) {
 *     page.forEach(System.out::println);
 *     query = query.next(page);
 *     if (query == null) break;
 * }
 * }</pre>
 *
 * @param consumer the consumer whose records are listed
 * @param overdue how long ago the lease must have ended, at least (zero: any ended lease)
 * @param after list ids after this one ({@link #ID_ORDER}), or null to start at the first
 * @param limit the most records one page holds, 1 to {@value #MAX_LIMIT}
 */
public record StuckQuery(
        String consumer, Duration overdue, @Nullable String after, int limit) {

    /** The largest page. */
    public static final int MAX_LIMIT = 1_000;

    /** The longest {@code overdue} a query takes: 100 years (the longest lease a store keeps). */
    public static final Duration MAX_OVERDUE = Duration.ofDays(36_525);

    /** The page size of {@link #of(String)}. */
    public static final int DEFAULT_LIMIT = 100;

    /**
     * The order of ids in pages: by Unicode code point, which is the order of their UTF-8 bytes
     * (the order of the SQL stores' byte-exact keys).
     */
    public static final Comparator<String> ID_ORDER = StuckQuery::compareIds;

    /**
     * Checks the arguments.
     *
     * @throws IllegalArgumentException if {@code consumer} or {@code after} is not a valid key part,
     *     {@code overdue} is null, negative or over {@link #MAX_OVERDUE}, or {@code limit} is not 1 to
     *     {@value #MAX_LIMIT}
     */
    public StuckQuery {
        InboxKey.validate(consumer, "consumer");
        InboxArguments.requireNonNegative(overdue, "overdue");
        InboxArguments.requireArgument(
                overdue.compareTo(MAX_OVERDUE) <= 0, "overdue must be at most 100 years but was " + overdue);
        if (after != null) {
            InboxKey.validate(after, "after");
        }
        InboxArguments.requireArgument(
                limit >= 1 && limit <= MAX_LIMIT, "limit must be 1 to " + MAX_LIMIT + " but was " + limit);
    }

    /**
     * The first page of {@code consumer}'s records whose lease has ended, {@value #DEFAULT_LIMIT}
     * at most.
     *
     * @throws IllegalArgumentException if {@code consumer} is not a valid consumer name
     */
    public static StuckQuery of(String consumer) {
        return new StuckQuery(consumer, Duration.ZERO, null, DEFAULT_LIMIT);
    }

    /** This query for leases that ended at least {@code overdue} ago. */
    public StuckQuery withOverdue(Duration overdue) {
        return new StuckQuery(consumer, overdue, after, limit);
    }

    /** This query for ids after {@code after} (null: from the first). */
    public StuckQuery withAfter(@Nullable String after) {
        return new StuckQuery(consumer, overdue, after, limit);
    }

    /** This query with pages of at most {@code limit}. */
    public StuckQuery withLimit(int limit) {
        return new StuckQuery(consumer, overdue, after, limit);
    }

    /**
     * The query of the page after {@code page}, or null when {@code page} was the last (shorter
     * than {@link #limit()}).
     */
    public @Nullable StuckQuery next(List<RecordView> page) {
        InboxArguments.requireNonNull(page, "page");
        return page.size() < limit
                ? null
                : withAfter(page.get(page.size() - 1).key().id());
    }

    /**
     * Whether {@code record} belongs in a page of this query, judged at {@code nowMillis} (the
     * store's clock, epoch milliseconds): for stores that scan and filter on the client.
     */
    public boolean matches(RecordView record, long nowMillis) {
        return record.key().consumer().equals(consumer)
                && record.state() == RecordState.LEASE_ENDED
                && record.expiresAt().toEpochMilli() <= nowMillis - overdue.toMillis()
                && (after == null || compareIds(record.key().id(), after) > 0);
    }

    private static int compareIds(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
