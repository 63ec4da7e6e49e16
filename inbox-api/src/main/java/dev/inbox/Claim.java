package dev.inbox;

import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.OwnerToken;

/**
 * One event's claim from {@link Inbox#claimAll(java.util.List)}, for consumers that claim a whole
 * poll at once and run the work themselves (the Kafka adapter). An {@code ACQUIRED} claim must end
 * in {@link #complete()} after the work or {@link #release()} instead of it; a {@code DUPLICATE} or
 * {@code BUSY} one needs nothing.
 */
public final class Claim {

    private final Inbox inbox;
    private final InboxKey key;
    private final OwnerToken owner;
    private final ClaimResult result;

    Claim(Inbox inbox, InboxKey key, OwnerToken owner, ClaimResult result) {
        this.inbox = inbox;
        this.key = key;
        this.owner = owner;
        this.result = result;
    }

    Inbox inbox() {
        return inbox;
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
     * @return true when recorded; false when the lease had ended and another delivery took the
     *     event over (counted as a lost lease: it may apply the event again)
     * @throws IllegalStateException if this claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not record it
     */
    public boolean complete() {
        requireAcquired("complete");
        return inbox.completeClaim(key, owner);
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
        return inbox.renewClaim(key, owner);
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
        return inbox.releaseClaim(key, owner);
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
