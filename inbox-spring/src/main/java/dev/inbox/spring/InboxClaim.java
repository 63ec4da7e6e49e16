package dev.inbox.spring;

import dev.inbox.Claim;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * One delivery's claim from {@link SpringInbox#claim(String)}: either a lease-mode {@link Claim},
 * which the caller completes or releases after the work, or a claim made inside the Spring-managed
 * transaction, which the transaction's commit or rollback decides.
 *
 * <p>Listener adapters hold one between their "before" and "after" callbacks; application code
 * usually calls {@link SpringInbox#handle} instead.
 */
public final class InboxClaim {

    private static final Log log = LogFactory.getLog(InboxClaim.class);

    private final String id;
    private final ClaimResult result;
    private final @Nullable Claim lease;

    private InboxClaim(String id, ClaimResult result, @Nullable Claim lease) {
        this.id = id;
        this.result = result;
        this.lease = lease;
    }

    /**
     * A lease-mode claim, kept renewed until it is completed or released ({@link
     * Claim#keepRenewed()}): the listener runs between two callbacks of its container, as long as it
     * takes, and must not lose the event to another delivery meanwhile.
     */
    static InboxClaim lease(Claim claim) {
        if (claim.isAcquired()) {
            claim.keepRenewed();
        }
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

    /**
     * Ends this acquired claim after its work succeeded, as a listener adapter must, and never
     * throws: a transactional claim is left to its transaction; a lease-mode claim is completed now
     * or — inside a Spring transaction that it did not join (a Kafka or RabbitMQ transaction manager's,
     * one on another data source) — after that transaction commits, and released if it rolls back,
     * so a commit that fails after the work never leaves the event COMPLETED without its effects. A
     * completion that fails is logged: the work ran, so the message is acknowledged all the same,
     * and the lease bounds the window in which a redelivery applies it again.
     *
     * @throws IllegalStateException if the claim was not {@code ACQUIRED}
     */
    public void completeAfterWork() {
        requireAcquired("complete");
        Claim held = lease;
        if (held == null) {
            return;
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            completeLogged(held);
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                if (status == STATUS_COMMITTED) {
                    completeLogged(held);
                } else {
                    releaseLogged(held, null);
                }
            }
        });
    }

    /**
     * Releases this acquired claim after its work failed, and never throws: a transactional claim
     * is left to its transaction's rollback; a failure to release a lease-mode claim is logged and
     * added to {@code cause} (the lease then ends by itself). A failure ({@code cause} given) is
     * logged at WARN with the event's id and the cause, whatever the container logs of it.
     *
     * @throws IllegalStateException if the claim was not {@code ACQUIRED}
     */
    public void releaseAfterFailure(@Nullable Throwable cause) {
        requireAcquired("release");
        if (cause != null) {
            log.warn(
                    "the listener of event " + id + " failed (" + cause + "); its claim "
                            + (lease != null ? "is released" : "rolls back with the transaction")
                            + ", so the next delivery runs it again",
                    cause);
        }
        giveBack(cause);
    }

    /**
     * Releases this acquired claim, whose work did not run or did not fail itself (the rest of a
     * batch given back after another record's failure), as {@link #releaseAfterFailure} does but
     * without logging a failure of its own; a failure to release is added to {@code cause}.
     *
     * @throws IllegalStateException if the claim was not {@code ACQUIRED}
     */
    public void giveBack(@Nullable Throwable cause) {
        requireAcquired("release");
        if (lease != null) {
            releaseLogged(lease, cause);
        }
    }

    private static void completeLogged(Claim held) {
        try {
            if (!held.complete()) {
                log.warn("the listener of " + held.id() + " finished after its lease had ended and another delivery"
                        + " took the event over: it may be applied twice; lengthen the lease");
            }
        } catch (InboxStoreException e) {
            log.error(
                    "the listener of " + held.id() + " ran, but its completion could not be recorded; a redelivery"
                            + " after the lease ends applies it again",
                    e);
        }
    }

    private static void releaseLogged(Claim held, @Nullable Throwable cause) {
        try {
            held.release();
        } catch (RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
            log.warn("could not release the claim of " + held.id() + "; its lease ends by itself", e);
        }
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
