package dev.inbox.spring;

import dev.inbox.Claim;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import org.jspecify.annotations.Nullable;

/**
 * One delivery's claim from {@link SpringInbox#claim(String)}: either a lease-mode {@link Claim},
 * which the caller completes or releases after the work, or a claim made inside the Spring-managed
 * transaction, which the transaction's commit or rollback decides.
 *
 * <p>Listener adapters hold one between their "before" and "after" callbacks; application code
 * usually calls {@link SpringInbox#handle} instead.
 */
public final class InboxClaim {

    private final String id;
    private final ClaimResult result;
    private final @Nullable Claim lease;

    private InboxClaim(String id, ClaimResult result, @Nullable Claim lease) {
        this.id = id;
        this.result = result;
        this.lease = lease;
    }

    static InboxClaim lease(Claim claim) {
        return new InboxClaim(claim.id(), claim.result(), claim);
    }

    static InboxClaim transactional(String id, ClaimResult result) {
        return new InboxClaim(id, result, null);
    }

    /** The event's dedup id. */
    public String id() {
        return id;
    }

    /** {@code ACQUIRED}, {@code DUPLICATE} or {@code BUSY}. */
    public ClaimStatus status() {
        return result.status();
    }

    /** The store's answer. */
    public ClaimResult result() {
        return result;
    }

    /** True when this delivery holds the event and must run its work. */
    public boolean isAcquired() {
        return result.isAcquired();
    }

    /**
     * True when the claim was written inside the Spring-managed transaction: it commits or rolls
     * back with the work's own writes, and {@link #complete()} and {@link #release()} do nothing.
     */
    public boolean isTransactional() {
        return lease == null;
    }

    /**
     * Records the work as done. In a transaction this is the transaction's commit, so it does
     * nothing here and returns true.
     *
     * @return false when a lease-mode claim's lease had ended and another delivery took the event
     *     over (it may apply the event again; counted as a lost lease)
     * @throws IllegalStateException if the claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not record it
     */
    public boolean complete() {
        requireAcquired("complete");
        return lease == null || lease.complete();
    }

    /**
     * Gives the event back without its work, so the next delivery claims it at once. In a
     * transaction this is the transaction's rollback, so it does nothing here and returns true.
     *
     * @return false when a lease-mode claim's owner no longer held it
     * @throws IllegalStateException if the claim was not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not answer (the lease then ends by itself)
     */
    public boolean release() {
        requireAcquired("release");
        return lease == null || lease.release();
    }

    private void requireAcquired(String operation) {
        if (!result.isAcquired()) {
            throw new IllegalStateException("cannot " + operation + " a claim that is " + result.status() + ": " + id);
        }
    }

    @Override
    public String toString() {
        return "InboxClaim[" + id + ", " + result + (isTransactional() ? ", in the transaction" : ", lease") + "]";
    }
}
