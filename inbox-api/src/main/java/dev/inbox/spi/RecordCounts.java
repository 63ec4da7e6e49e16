package dev.inbox.spi;

/**
 * How many records of one consumer a store holds, by {@link RecordState}, judged by the store's
 * clock when they were counted.
 *
 * @param inProgress held, lease running
 * @param leaseEnded held, lease ended: stuck until a redelivery takes them over
 * @param completed completed, retention running
 * @param retentionEnded completed, retention ended, inside grace
 * @param expired past expiry + grace, not yet removed (stores that expire records natively may
 *     report none)
 */
public record RecordCounts(long inProgress, long leaseEnded, long completed, long retentionEnded, long expired) {

    /** No records. */
    public static final RecordCounts NONE = new RecordCounts(0, 0, 0, 0, 0);

    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public RecordCounts {
        InboxArguments.requireArgument(
                inProgress >= 0 && leaseEnded >= 0 && completed >= 0 && retentionEnded >= 0 && expired >= 0,
                "counts must not be negative");
    }

    /** The count of {@code state}. */
    public long count(RecordState state) {
        return switch (InboxArguments.requireNonNull(state, "state")) {
            case IN_PROGRESS -> inProgress;
            case LEASE_ENDED -> leaseEnded;
            case COMPLETED -> completed;
            case RETENTION_ENDED -> retentionEnded;
            case EXPIRED -> expired;
        };
    }

    /** All records counted, whatever their state. */
    public long total() {
        return inProgress + leaseEnded + completed + retentionEnded + expired;
    }

    /** These counts with one more record in {@code state}. */
    public RecordCounts plus(RecordState state) {
        return switch (InboxArguments.requireNonNull(state, "state")) {
            case IN_PROGRESS -> new RecordCounts(inProgress + 1, leaseEnded, completed, retentionEnded, expired);
            case LEASE_ENDED -> new RecordCounts(inProgress, leaseEnded + 1, completed, retentionEnded, expired);
            case COMPLETED -> new RecordCounts(inProgress, leaseEnded, completed + 1, retentionEnded, expired);
            case RETENTION_ENDED -> new RecordCounts(inProgress, leaseEnded, completed, retentionEnded + 1, expired);
            case EXPIRED -> new RecordCounts(inProgress, leaseEnded, completed, retentionEnded, expired + 1);
        };
    }
}
