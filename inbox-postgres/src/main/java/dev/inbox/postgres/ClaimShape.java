package dev.inbox.postgres;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which statement a claim (lease or transactional) starts with, chosen from what this store's
 * recent claims found.
 * A plain {@code INSERT … ON CONFLICT DO NOTHING} costs less than the statement that also reads the
 * record back when the key is new (measured: {@code benchmarks/results/pg-claim-shapes.txt}, the
 * {@code insert-only} and {@code inbox} shapes), and one more round trip when a record is there.
 * So claims start with the plain insert while most keys are new — the usual case — and with the
 * read-back statement while a redelivery storm makes most of them duplicates. The break-even is
 * near one claim in five finding a record: a conflict moves the score up by {@value #CONFLICT}, a
 * new key down by one, and the read-back statement is chosen above the middle of the range.
 * Thread-safe; both shapes answer every claim the same way.
 */
final class ClaimShape {

    private static final int CONFLICT = 4;
    private static final int CEILING = 64;
    private static final int READ_BACK_ABOVE = CEILING / 2;

    private final AtomicInteger score = new AtomicInteger();

    /** Whether the next claim starts with the plain insert. */
    boolean insertFirst() {
        return score.get() <= READ_BACK_ABOVE;
    }

    /** A claim found its key new ({@code true}) or a record there ({@code false}). */
    void found(boolean newKey) {
        int current = score.get();
        int next = newKey ? Math.max(0, current - 1) : Math.min(CEILING, current + CONFLICT);
        if (next != current) {
            score.compareAndSet(current, next); // a lost update under contention only delays the switch
        }
    }
}
