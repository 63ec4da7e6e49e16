package dev.inbox;

import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.OwnerToken;
import org.jspecify.annotations.Nullable;

/**
 * One event's claim from {@link InboxClaims#claim(String)} or {@link InboxClaims#claimAll(java.util.List)},
 * for consumers that claim a whole poll at once and run the work themselves (the Kafka adapter). An {@code ACQUIRED} claim must end
 * in {@link #complete()} after the work or {@link #release()} instead of it; a {@code DUPLICATE} or
 * {@code BUSY} one needs nothing.
 *
 * <p>Work that may outlast the lease — a long handler, or the last records of a big poll whose work
 * starts late — calls {@link #keepRenewed()} right after the claim: the lease is then renewed in the
 * background until the claim is completed or released.
 */
public final class Claim {

    private final InboxClaims claims;
    private final InboxKey key;
    private final OwnerToken owner;
    private final ClaimResult result;
    private final long claimedAtNanos;
    private @Nullable Lease renewed;
    private boolean ended;

    Claim(InboxClaims claims, InboxKey key, OwnerToken owner, ClaimResult result, long claimedAtNanos) {
        this.claims = claims;
        this.key = key;
        this.owner = owner;
        this.result = result;
        this.claimedAtNanos = claimedAtNanos;
    }

    InboxClaims claims() {
        return claims;
    }

    InboxKey key() {
        return key;
    }

    OwnerToken owner() {
        return owner;
    }

    /** The event's dedup id. */
    public String id() {
        return key.id();
    }

    /** The store's answer. */
    public ClaimResult result() {
        return result;
    }

    /** {@code ACQUIRED}, {@code DUPLICATE} or {@code BUSY}. */
    public ClaimStatus status() {
        return result.status();
    }

    /** True when this delivery holds the event and must run its work. */
    public boolean isAcquired() {
        return result.isAcquired();
    }

    /**
     * Records the work as done, so the event suppresses duplicates for the inbox's retention;
     * retried like {@link Inbox#handle} does.
     *
     * <p>Renewals started by {@link #keepRenewed()} stop before the store is asked: a completion that
     * fails ({@link InboxStoreException}) leaves the lease to run out unrenewed. Acknowledge the
     * message then rather than retry the completion much later — after the lease another delivery
     * may take the event over and apply it again — as every adapter here does.
     *
     * @return true when recorded; false when the lease had ended and another delivery took the
     *     event over (counted as a lost lease: it may apply the event again)
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not record it
     */
    public boolean complete() {
        requireAcquired("complete");
        stopRenewing();
        return claims.completeClaim(key, owner, null);
    }

    /**
     * {@link #complete()}, keeping {@code result} with the record: a later claim of the same event
     * answers {@code DUPLICATE} with it ({@link ClaimResult#storedResult()}), as {@link
     * Inbox#handleReturning} does for its work's result.
     *
     * @param result at most the store's {@link dev.inbox.spi.InboxStore#maxResultBytes()} bytes
     * @return true when recorded; false when the lease had ended and another delivery took the
     *     event over
     * @throws IllegalArgumentException if {@code result} is null or longer than the store keeps
     *     (before any I/O; the claim stays held: release it)
     * @throws UnsupportedOperationException if the store keeps no results
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not record it
     */
    public boolean complete(byte[] result) {
        requireAcquired("complete");
        byte[] kept = claims.requireKeepable(result);
        stopRenewing();
        return claims.completeClaim(key, owner, kept);
    }

    /**
     * Extends this claim's lease by the inbox's lease from now ({@link
     * dev.inbox.spi.InboxStore#renew}), for work that runs longer than one lease.
     *
     * @return true when renewed; false when this owner no longer holds the event (it was taken
     *     over after the lease ended, completed or released)
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not answer
     */
    public boolean renew() {
        requireAcquired("renew");
        return claims.renewClaim(key, owner);
    }

    /**
     * Keeps this claim's lease renewed in the background, as {@link Inbox#handleRenewing} does for
     * its work, until {@link #complete()} or {@link #release()}: every {@link
     * Inbox.Builder#renewEvery(java.time.Duration) renewEvery} (a third of the lease by default) on
     * the inbox's renewal scheduler. A renewal the store refuses (the event was taken over after a
     * stall longer than the lease) ends the renewals and is counted ({@link
     * InboxMetrics#leaseRenewalFailed}); the work should then stop before a side effect that must not
     * happen twice, and {@link #complete()} will return false. Calling it again returns the same lease.
     *
     * <p>A claim that is neither completed nor released keeps being renewed: end every claim.
     *
     * @return the lease: check {@link Lease#isHeld()} before such a side effect
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}, or was already completed or
     *     released
     */
    public synchronized Lease keepRenewed() {
        requireAcquired("renew");
        if (ended) {
            throw new IllegalStateException("cannot renew a claim that was completed or released: " + key);
        }
        Lease lease = renewed;
        if (lease == null) {
            lease = claims.renewing(key, owner, claimedAtNanos);
            renewed = lease;
        }
        return lease;
    }

    /**
     * Puts this claim under {@code lease}, renewed with others by {@link InboxClaims#keepRenewed(java.util.List)}:
     * false (nothing changed) when it is not {@code ACQUIRED}, already ended, or already renewed.
     */
    synchronized boolean renewedIn(Lease lease) {
        if (!result.isAcquired() || ended || renewed != null) {
            return false;
        }
        renewed = lease;
        return true;
    }

    long claimedAtNanos() {
        return claimedAtNanos;
    }

    /** Ends the renewals {@link #keepRenewed()} started; {@link InboxClaims#completeAll} calls it too. */
    synchronized void stopRenewing() {
        ended = true;
        if (renewed != null) {
            renewed.finish();
        }
    }

    /**
     * Gives the event back without doing its work, so that the next delivery claims it at once
     * instead of waiting for the lease to end.
     *
     * @return true when released; false when this owner no longer held it
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not answer (the lease then ends by itself)
     */
    public boolean release() {
        requireAcquired("release");
        stopRenewing();
        return claims.releaseClaim(key, owner);
    }

    private void requireAcquired(String operation) {
        if (!result.isAcquired()) {
            throw new IllegalStateException("cannot " + operation + " a claim that is " + result.status() + ": " + key);
        }
    }

    @Override
    public String toString() {
        return "Claim[" + key + ", " + result + "]";
    }
}
