package dev.inbox.spi;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import java.util.List;
import java.util.Optional;

/**
 * What an operator can see and change in a store, beside the claim path: inspect one key, list the
 * stuck ones, count by state, end one lease, forget one key. A store offers it through {@link
 * InboxStore#admin()}; the kit's rules M1 to M7 hold every store that does to the same answers.
 *
 * <p>None of these is on the hot path, and the listing ones cost what the store's layout allows:
 * each store says, per operation, what it reads (a key lookup, the consumer's rows, a scan of the
 * whole keyspace or table). Reads judge every record by the store's clock, as claims do. Bad
 * arguments fail with {@link IllegalArgumentException} before any I/O, a store that cannot answer
 * with {@link InboxStoreException}, and any operation after the store was closed with {@link
 * IllegalStateException}. A write changes one record in one atomic step, or nothing.
 *
 * <p>The two writes override what the claims decided, so use them knowingly: {@link
 * #releaseLease(InboxKey)} lets the event be applied again if its owner is in fact still working,
 * {@link #forget(InboxKey)} lets a completed event be applied again when it is redelivered. {@code
 * dev.inbox.InboxOperations} logs and counts each one.
 */
public interface InboxAdmin {

    /**
     * The record of {@code key} as the store holds it now.
     *
     * @return the record, or empty when the store holds none (never written, released, forgotten or
     *     removed); a record past expiry + grace that was not removed yet is shown {@link
     *     RecordState#EXPIRED}
     * @throws IllegalArgumentException if {@code key} is null
     * @throws InboxStoreException if the store could not answer
     */
    Optional<RecordView> inspect(InboxKey key);

    /**
     * One page of the consumer's stuck records: IN_PROGRESS, lease ended at least {@link
     * StuckQuery#overdue()} ago, not yet past expiry + grace, in id order after {@link
     * StuckQuery#after()}. A page shorter than {@link StuckQuery#limit()} is the last; {@link
     * StuckQuery#next(List)} gives the query of the next one.
     *
     * @throws IllegalArgumentException if {@code query} is null
     * @throws InboxStoreException if the store could not answer
     */
    List<RecordView> stuck(StuckQuery query);

    /**
     * How many records {@code consumer} holds, by state. It reads every record of the consumer (or
     * more: each store says what), so it costs what the consumer's records cost to read.
     *
     * @throws IllegalArgumentException if {@code consumer} is not a valid consumer name
     * @throws InboxStoreException if the store could not answer
     */
    RecordCounts count(String consumer);

    /**
     * Ends the lease of {@code key}, whoever holds it, by deleting its IN_PROGRESS record: the next
     * delivery claims the key at once, and the old owner's later completion, renewal or release is
     * fenced (answers false) as after a takeover. The operator's override for an owner known to be
     * dead, or whose work is known not to have been applied: if it is still working, its work may be
     * applied twice. A COMPLETED record is never touched.
     *
     * @return true when an IN_PROGRESS record was deleted; false when the key had none (absent,
     *     COMPLETED, or past expiry + grace)
     * @throws IllegalArgumentException if {@code key} is null
     * @throws InboxStoreException if the store could not answer; then nothing changed, or the
     *     record was deleted and a retry answers false
     */
    boolean releaseLease(InboxKey key);

    /**
     * Deletes the record of {@code key}, whatever its state: the next delivery of the event is
     * ACQUIRED and applied again (replay on purpose), and an owner holding it is fenced as by {@link
     * #releaseLease(InboxKey)}. Records of the same id under other consumers stay.
     *
     * @return true when a record was deleted; false when the store held none that counted (absent,
     *     or past expiry + grace)
     * @throws IllegalArgumentException if {@code key} is null
     * @throws InboxStoreException if the store could not answer; then nothing changed, or the
     *     record was deleted and a retry answers false
     */
    boolean forget(InboxKey key);
}
