package dev.inbox.spi;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The store SPI: four atomic operations on records keyed by {@link InboxKey}.
 *
 * <p>A record is IN_PROGRESS (held by an owner until its lease ends) or COMPLETED (suppressing
 * duplicates until its retention ends). Past that expiry it is still kept for the store's
 * <em>grace</em> period, during which a duplicate is still suppressed but reported {@linkplain
 * ClaimResult#isLate() late}; after it, the record counts as absent and {@link #purge()} removes
 * it.
 *
 * <p>Every operation is one atomic step on the store's side, never a read followed by a write, and
 * expiry is decided by one clock per store (the database's or the server's where there is one),
 * never by each caller's own. Implementations are thread-safe. Bad arguments fail with {@link
 * IllegalArgumentException} before any I/O; a store that cannot answer throws {@link
 * InboxStoreException}; any operation after {@link #close()} throws {@link
 * IllegalStateException}.
 *
 * <p>Implementations prove themselves by passing the {@code inbox-tck} contract classes.
 */
public interface InboxStore extends AutoCloseable {

    /**
     * Records {@code request.key()} as held by {@code request.owner()} for {@code request.lease()},
     * unless a live record exists.
     *
     * @return {@link ClaimStatus#ACQUIRED} when the key was absent (or past expiry + grace), when
     *     another owner's lease had expired (a takeover) or when the same owner claims again;
     *     {@link ClaimStatus#DUPLICATE} when a COMPLETED record exists ({@linkplain
     *     ClaimResult#isLate() late} when past retention), with the fingerprint comparison; {@link
     *     ClaimStatus#BUSY} when another owner's lease is live
     * @throws IllegalArgumentException if {@code request} is null
     * @throws InboxStoreException if the store could not answer
     */
    ClaimResult claim(ClaimRequest request);

    /**
     * Claims each request in order, as {@link #claim(ClaimRequest)} would, and returns one result
     * per request in the same order. A key repeated inside the batch is claimed by its first
     * occurrence; later occurrences are answered {@link ClaimStatus#DUPLICATE}.
     *
     * <p>The default loops; stores override it to use one round trip per chunk. A failure may leave
     * some of the batch claimed: retrying the same batch with the same owners is safe.
     *
     * @throws IllegalArgumentException if {@code requests} or an element is null (before any claim)
     * @throws InboxStoreException if the store could not answer
     */
    default List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        List<ClaimRequest> batch = InboxArguments.requireNoNulls(requests, "requests");
        List<ClaimResult> results = new ArrayList<>(batch.size());
        Map<InboxKey, ClaimRequest> firsts = new HashMap<>();
        for (ClaimRequest request : batch) {
            ClaimRequest first = firsts.putIfAbsent(request.key(), request);
            results.add(
                    first == null
                            ? claim(request)
                            : ClaimResult.duplicate(
                                    false, FingerprintCheck.compare(first.fingerprint(), request.fingerprint())));
        }
        return results;
    }

    /**
     * Turns the owner's IN_PROGRESS record into a COMPLETED one that suppresses duplicates for
     * {@code retention}. Completing again with the same owner is harmless and answers true. An owner
     * whose lease ended but whose record nobody took over (and that is not past its grace) may still
     * complete it: the work is done and nobody else holds the event — rule C9 races exactly this
     * completion against takeovers, and exactly one side may win.
     *
     * @return true when done; false when {@code owner} does not hold the key (its lease expired and
     *     was taken over, or it was released)
     * @throws IllegalArgumentException if an argument is null or {@code retention} is not positive
     * @throws InboxStoreException if the store could not answer
     */
    boolean complete(InboxKey key, OwnerToken owner, Duration retention);

    /**
     * Like {@link #complete(InboxKey, OwnerToken, Duration)}, and keeps {@code result} with the
     * COMPLETED record: every later claim that answers {@link ClaimStatus#DUPLICATE} (late ones
     * too, until the record is removed) carries exactly these bytes as {@link
     * ClaimResult#storedResult()}. For request/reply consumers, whose duplicate must answer what
     * the first delivery answered. Completing again with the same owner answers true and keeps the
     * result stored first.
     *
     * <p>The default throws {@link UnsupportedOperationException}: a store that keeps no results
     * fails the kit's rules S1 and S2.
     *
     * @param result the bytes to keep, at most {@link #maxResultBytes()} long (may be empty)
     * @return true when done; false when {@code owner} does not hold the key, and then nothing changed
     * @throws IllegalArgumentException if an argument is null, {@code retention} is not positive or
     *     {@code result} is longer than {@link #maxResultBytes()} (before any I/O: the record stays
     *     IN_PROGRESS)
     * @throws InboxStoreException if the store could not answer
     */
    default boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        throw new UnsupportedOperationException(getClass().getName() + " does not keep results");
    }

    /**
     * The longest result, in bytes, that {@link #complete(InboxKey, OwnerToken, Duration, byte[])}
     * keeps; 0 for a store that keeps none (the default).
     */
    default int maxResultBytes() {
        return 0;
    }

    /**
     * Completes a batch, with the answer {@link #complete} would give each item, in order: what a
     * consumer that polled many messages does once their work is done. The default completes one
     * by one; stores override it to use one round trip per chunk. Completing is idempotent for
     * the owner, so a retry of a batch whose reply was lost is safe.
     *
     * @return one answer per item, in the same order
     * @throws IllegalArgumentException if {@code held} is null or holds a null, or {@code
     *     retention} is null or not positive (before any I/O)
     * @throws InboxStoreException if the store could not answer; some items may have been completed
     */
    default List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        List<HeldKey> batch = InboxArguments.requireNoNulls(held, "held");
        InboxArguments.requirePositive(retention, "retention");
        List<Boolean> answers = new ArrayList<>(batch.size());
        for (HeldKey item : batch) {
            answers.add(complete(item.key(), item.owner(), retention));
        }
        return answers;
    }

    /**
     * Extends the owner's IN_PROGRESS record so that its lease ends {@code lease} from now (the
     * store's clock), for work that runs longer than the lease it claimed with. Fenced like {@link
     * #complete}: atomic, and only for the owner that holds the record.
     *
     * <p>The default throws {@link UnsupportedOperationException}: a store that does not renew
     * fails the kit's rules H1 and H2.
     *
     * @return true when extended; false when {@code owner} holds no IN_PROGRESS record for the key
     *     (it was released, completed, taken over after the lease ended, purged, or never claimed),
     *     and then nothing changed
     * @throws IllegalArgumentException if an argument is null or {@code lease} is not positive
     * @throws InboxStoreException if the store could not answer
     */
    default boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        throw new UnsupportedOperationException(getClass().getName() + " does not renew leases");
    }

    /**
     * Deletes the owner's IN_PROGRESS record so that a redelivery can claim the key at once (used
     * when processing failed). A COMPLETED record is never released.
     *
     * @return true when deleted; false when {@code owner} holds no IN_PROGRESS record for the key
     * @throws IllegalArgumentException if an argument is null
     * @throws InboxStoreException if the store could not answer
     */
    boolean release(InboxKey key, OwnerToken owner);

    /**
     * Removes the records that are past expiry + grace, in bounded batches, and returns how many
     * were removed. The grace is each record's own: the one of the instance that last wrote it (its
     * claim, takeover, renewal or completion), never the purging instance's (rule R3). Stores whose records expire natively (Redis, DynamoDB TTL) may remove nothing
     * here and say so in their documentation; a record past expiry + grace is treated as absent
     * either way.
     *
     * @throws InboxStoreException if the store could not answer
     */
    long purge();

    /**
     * The operator's operations on this store: inspect, list stuck records, count by state, end a
     * lease, forget a key. The returned object uses this store's connections and is closed with it.
     *
     * <p>The default throws {@link UnsupportedOperationException}: a store that offers none fails
     * the kit's rules M1 to M7.
     *
     * @throws IllegalStateException if the store is closed
     */
    default InboxAdmin admin() {
        throw new UnsupportedOperationException(getClass().getName() + " offers no admin operations");
    }

    /**
     * Releases what the store created itself (never what the caller passed in, such as a pool or a
     * client). Later operations throw {@link IllegalStateException}. Closing twice is harmless.
     */
    @Override
    void close();
}
