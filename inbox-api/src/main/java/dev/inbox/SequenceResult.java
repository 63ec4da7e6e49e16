package dev.inbox;

import dev.inbox.spi.InboxArguments;

/**
 * The decision of {@link SequenceGuard#advance(InboxKey, long)} and the sequence number the guard
 * expected, so that a caller that sees a {@link SequenceStatus#GAP} can buffer or wait.
 *
 * @param status what was decided
 * @param expected the sequence number that was next before this call
 */
public record SequenceResult(SequenceStatus status, long expected) {

    /** Checks the arguments. */
    public SequenceResult {
        InboxArguments.requireNonNull(status, "status");
    }

    /**
     * Decides for {@code seq} given the next expected number.
     *
     * @param expected the next expected sequence number for the entity
     */
    public static SequenceResult decide(long seq, long expected) {
        SequenceStatus status =
                seq == expected ? SequenceStatus.APPLIED : seq < expected ? SequenceStatus.STALE : SequenceStatus.GAP;
        return new SequenceResult(status, expected);
    }

    /** True when the event should be applied now. */
    public boolean isApplied() {
        return status == SequenceStatus.APPLIED;
    }
}
