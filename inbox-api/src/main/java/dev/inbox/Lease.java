package dev.inbox;

import java.time.Duration;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The claim a running {@link LeasedWork} holds, renewed in the background by {@link
 * Inbox#handleRenewing} (or by {@link Claim#keepRenewed()} until the claim ends). Check {@link #isHeld()} before a side effect that must not happen twice
 * (a payment, an e-mail): once it is false another delivery may have taken the event over.
 */
public final class Lease {

    private final String id;
    private final long lengthNanos;
    private volatile long heldUntilNanos;
    private volatile boolean lost;
    private volatile boolean finished;
    private volatile @Nullable Future<?> renewals;
    /** Told once when the work ends: a group's renewals end with their last lease. */
    private volatile @Nullable Runnable whenFinished;

    Lease(String id, Duration length, long claimedAtNanos) {
        this.id = id;
        this.lengthNanos = length.toNanos();
        this.heldUntilNanos = claimedAtNanos + lengthNanos;
    }

    /** The event's dedup id. */
    public String id() {
        return id;
    }

    /**
     * True while this delivery still holds the event: no renewal was refused, and the claim or its
     * last renewal was asked for less than one lease ago (by this JVM's clock, which is
     * conservative: the store's lease began later). False once a renewal was refused (the event
     * was taken over or released) or when renewals failed for a whole lease (the store was
     * unreachable).
     */
    public boolean isHeld() {
        return !lost && System.nanoTime() - heldUntilNanos < 0;
    }

    /** True once the store refused a renewal: another delivery took the event over. */
    public boolean isLost() {
        return lost;
    }

    /** The store renewed the lease asked for at {@code askedAtNanos}. */
    void renewed(long askedAtNanos) {
        heldUntilNanos = askedAtNanos + lengthNanos;
    }

    /** The store refused a renewal: reports whether that is news (the work still ran). */
    boolean refused() {
        if (finished || lost) {
            return false;
        }
        lost = true;
        return true;
    }

    /** The renewals scheduled for this lease, cancelled by {@link #finish()}. */
    void renewals(Future<?> renewals) {
        this.renewals = renewals;
        if (finished) {
            renewals.cancel(false);
        }
    }

    /** Runs {@code whenFinished} once when {@link #finish()} is first called. */
    void whenFinished(Runnable whenFinished) {
        this.whenFinished = whenFinished;
    }

    /** The work ended: no more renewals, and one that answers from now on changes nothing here. */
    void finish() {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
        }
        Future<?> scheduled = renewals;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        Runnable told = whenFinished;
        if (told != null) {
            told.run();
        }
    }

    boolean isFinished() {
        return finished;
    }

    @Override
    public String toString() {
        return "Lease[" + id + (lost ? ", lost" : isHeld() ? ", held" : ", expired") + "]";
    }
}
