package dev.inbox.spi;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * For store implementations: which of two ways a claim starts with, chosen from what the store's
 * recent claims found. Many stores have a cheap way to claim a key that is new — a plain insert, a
 * plain {@code SET NX} — that costs one more round trip when a record is already there, and a
 * dearer way that answers a duplicate in the same round trip (PostgreSQL's {@code INSERT … ON
 * CONFLICT DO NOTHING} with and without the read-back, {@code benchmarks/results/pg-claim-shapes.txt};
 * Redis's {@code SET NX GET} with and without the claim script, {@code redis-claim-shapes.txt};
 * MySQL's {@code INSERT … ON DUPLICATE KEY UPDATE} with and without the conflict's code, {@code
 * mysql-claim-shapes.txt}).
 *
 * <p>Claims start with the write while most keys are new — the usual case — and with the full claim
 * while a redelivery storm makes most of them duplicates. The break-even is near one claim in five
 * finding a record: a conflict moves the score up by {@value #CONFLICT}, a new key down by one, and
 * the full claim is chosen above the middle of the range. Thread-safe; both ways must answer every
 * claim the same way.
 */
public final class ClaimShape {

    private static final int CONFLICT = 4;
    private static final int CEILING = 64;
    private static final int READ_BACK_ABOVE = CEILING / 2;

    private final AtomicInteger score = new AtomicInteger();

    /** A shape that starts with the write. */
    public ClaimShape() {}

    /** Whether the next claim starts with the plain write of a new key. */
    public boolean writeFirst() {
        return score.get() <= READ_BACK_ABOVE;
    }

    /** A claim found its key new ({@code true}) or a record there ({@code false}). */
    public void found(boolean newKey) {
        int current = score.get();
        int next = newKey ? Math.max(0, current - 1) : Math.min(CEILING, current + CONFLICT);
        if (next != current) {
            score.compareAndSet(current, next); // a lost update under contention only delays the switch
        }
    }
}
