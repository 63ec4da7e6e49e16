package dev.inbox.spi;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What a store saw of a record when it answered a claim, with its times already judged by the
 * store's clock. Stores whose atomic write says only "taken" or "not taken" (a conditional insert
 * or put) use it to turn the record they read back into the answer, the same way everywhere.
 *
 * <p>The write decides who wins; this only explains the outcome. When the record read back does
 * not explain it (it was changed, released or removed between the write and the read), {@link
 * #answer(boolean, ClaimRequest)} returns null and the store must try the claim again.
 *
 * @param owner the owner token the record holds
 * @param completed true for COMPLETED, false for IN_PROGRESS
 * @param expired the lease or retention has ended
 * @param gone the record is past expiry + grace and counts as absent
 * @param fingerprint the payload fingerprint the record keeps, or null
 * @param result the result a COMPLETED record keeps, or null
 * @param pastExpiry how long ago, by the store's clock, the lease or retention ended (negative
 *     while it runs), or null when the store did not read it; a DUPLICATE answer carries it as
 *     {@link ClaimResult#pastRetention()}
 */
public record StoredRecord(
        String owner,
        boolean completed,
        boolean expired,
        boolean gone,
        @Nullable String fingerprint,
        byte @Nullable [] result,
        @Nullable Duration pastExpiry) {

    /** A record that keeps no result, read without its time past expiry. */
    public StoredRecord(String owner, boolean completed, boolean expired, boolean gone, @Nullable String fingerprint) {
        this(owner, completed, expired, gone, fingerprint, null, null);
    }

    /** A record read without its time past expiry. */
    public StoredRecord(
            String owner,
            boolean completed,
            boolean expired,
            boolean gone,
            @Nullable String fingerprint,
            byte @Nullable [] result) {
        this(owner, completed, expired, gone, fingerprint, result, null);
    }

    /**
     * The answer to {@code request}.
     *
     * @param record the record as read, or null when there was none
     * @param taken true when the store's atomic write took the key for the request
     * @return the answer, or null when {@code record} cannot explain {@code taken}: retry the claim
     */
    public static @Nullable ClaimResult answer(@Nullable StoredRecord record, boolean taken, ClaimRequest request) {
        if (record == null) {
            return taken ? ClaimResult.acquired() : null;
        }
        return record.answer(taken, request);
    }

    /**
     * The answer this record gives to {@code request}; see {@link #answer(StoredRecord, boolean,
     * ClaimRequest)}.
     */
    public @Nullable ClaimResult answer(boolean taken, ClaimRequest request) {
        ClaimResult answer = decide(
                taken,
                completed,
                expired,
                gone,
                owner.equals(request.owner().value()),
                FingerprintCheck.compare(fingerprint, request.fingerprint()),
                result);
        return answer == null || pastExpiry == null ? answer : answer.withPastRetention(pastExpiry);
    }

    /**
     * The one claim decision, over what a store saw of the record it met, for stores that decide
     * in Java and for those that compute these facts server-side and report them (MySQL's
     * statement code). Kit rule D1 holds every store, whatever decides, to the same table.
     *
     * @param taken the store's atomic write took the key for the request
     * @param completed the record is COMPLETED (else IN_PROGRESS)
     * @param expired its lease or retention has ended
     * @param gone it is past expiry + grace and counts as absent
     * @param sameOwner it is held by the request's owner
     * @param fingerprint the stored fingerprint compared with the request's
     * @return the answer, or null when these facts cannot explain {@code taken}: retry the claim
     */
    public static @Nullable ClaimResult decide(
            boolean taken,
            boolean completed,
            boolean expired,
            boolean gone,
            boolean sameOwner,
            FingerprintCheck fingerprint) {
        return decide(taken, completed, expired, gone, sameOwner, fingerprint, null);
    }

    /**
     * {@link #decide(boolean, boolean, boolean, boolean, boolean, FingerprintCheck)} for a record
     * that may keep a result, which a DUPLICATE answer carries.
     *
     * @param result the result a COMPLETED record keeps, or null
     */
    public static @Nullable ClaimResult decide(
            boolean taken,
            boolean completed,
            boolean expired,
            boolean gone,
            boolean sameOwner,
            FingerprintCheck fingerprint,
            byte @Nullable [] result) {
        if (taken) {
            boolean takeover = !gone && !completed && expired && !sameOwner;
            return takeover ? ClaimResult.takenOver() : ClaimResult.acquired();
        }
        if (gone) {
            return null; // the write should have taken it
        }
        if (completed) {
            return ClaimResult.duplicate(expired, fingerprint, result);
        }
        if (!expired && !sameOwner) {
            return ClaimResult.busy();
        }
        return null; // an expired lease or our own: the write should have taken it
    }
}
