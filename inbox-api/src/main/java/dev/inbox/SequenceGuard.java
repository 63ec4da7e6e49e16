package dev.inbox;

import dev.inbox.spi.InboxArguments;

/**
 * Enforces per-entity ordering: an event is applied only when its sequence number is the next one
 * expected for its entity.
 *
 * <p>Ordering and deduplication are two independent checks; neither substitutes for the other. A
 * workload that needs both asks the guard and the {@link Inbox} separately. Sequence numbers of an
 * entity start at {@value #FIRST_SEQUENCE} and grow by one. Implementations are atomic in their
 * store: when several deliveries race on the same sequence number, exactly one is {@link
 * SequenceStatus#APPLIED}.
 */
public interface SequenceGuard extends AutoCloseable {

    /** The sequence number expected for an entity that has not been seen. */
    long FIRST_SEQUENCE = 1;

    /**
     * Advances {@code entity} to {@code seq} when {@code seq} is the next expected number.
     *
     * @param entity the entity's stream, scoped by consumer like a dedup key
     * @param seq the event's sequence number, at least {@value #FIRST_SEQUENCE}
     * @return {@link SequenceStatus#APPLIED} (it was next; it is now the last applied), {@link
     *     SequenceStatus#STALE} (already applied) or {@link SequenceStatus#GAP} (ahead of the next)
     * @throws IllegalArgumentException if {@code entity} is null or {@code seq} is below {@value
     *     #FIRST_SEQUENCE}
     * @throws InboxStoreException if the store could not answer
     */
    SequenceResult advance(InboxKey entity, long seq);

    /** Releases what the guard created itself; later calls throw {@link IllegalStateException}. */
    @Override
    void close();

    /**
     * Checks the arguments of {@link #advance(InboxKey, long)}; for implementations.
     *
     * @throws IllegalArgumentException as {@link #advance(InboxKey, long)} documents
     */
    static void validate(InboxKey entity, long seq) {
        InboxArguments.requireNonNull(entity, "entity");
        if (seq < FIRST_SEQUENCE) {
            throw new IllegalArgumentException("seq must be at least " + FIRST_SEQUENCE + " but was " + seq);
        }
    }
}
