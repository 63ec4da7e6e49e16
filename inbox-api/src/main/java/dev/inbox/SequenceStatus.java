package dev.inbox;

/** What a {@link SequenceGuard} decided for one event. */
public enum SequenceStatus {
    /** The sequence number was the next expected one; it is now the last applied. */
    APPLIED,
    /** The sequence number was already applied (or is older): skip the event. */
    STALE,
    /** The sequence number is ahead of the next expected one: an earlier event is missing. */
    GAP
}
