package dev.inbox.jdbc;

import static dev.inbox.spi.InboxArguments.requireArgument;

import java.util.concurrent.TimeUnit;

/**
 * How a purge spaces its batches: after each statement it rests {@code ratio} times as long as the
 * statement took, so that it takes at most {@code 1 / (1 + ratio)} of one connection's time and
 * leaves the server's CPU and I/O to the consumers' claims meanwhile — gh-ost's {@code --nice-ratio},
 * applied to deleting. Ratio 0 (the default) runs the batches back to back.
 *
 * <p>A thread interrupted while it rests stops purging: {@link #rest(long)} returns false with the
 * interrupt flag set again, and the purge returns the rows it deleted until then (each batch is a
 * committed transaction of its own, so nothing is half done).
 */
public final class PurgePacing {

    /** The most a ratio may be: a purge resting a hundred times as long as it works. */
    public static final double MAX_RATIO = 100;

    /** Batches back to back. */
    public static final PurgePacing NONE = new PurgePacing(0, PurgePacing::sleep);

    /** Sleeps for the given nanoseconds; a seam for tests, which count instead of sleeping. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    private final double ratio;
    private final Sleeper sleeper;

    PurgePacing(double ratio, Sleeper sleeper) {
        this.ratio = ratio;
        this.sleeper = sleeper;
    }

    /**
     * Pacing that rests {@code ratio} times as long as each batch took.
     *
     * @throws IllegalArgumentException if {@code ratio} is negative, above {@value #MAX_RATIO} or not a
     *     number
     */
    public static PurgePacing ratio(double ratio) {
        requireArgument(
                ratio >= 0 && ratio <= MAX_RATIO,
                "the purge's nice ratio must be between 0 and " + MAX_RATIO + " but was " + ratio);
        return ratio == 0 ? NONE : new PurgePacing(ratio, PurgePacing::sleep);
    }

    /** The rest after a batch, as a multiple of the batch's time. */
    public double ratio() {
        return ratio;
    }

    /**
     * Rests after a batch that started at {@code batchStartNanos} ({@link System#nanoTime()}).
     *
     * @return false if the thread was interrupted, now or before: the purge should stop
     */
    public boolean rest(long batchStartNanos) {
        if (ratio == 0) {
            return true;
        }
        long took = System.nanoTime() - batchStartNanos;
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            sleeper.sleep((long) (Math.max(0, took) * ratio));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long nanos) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos);
    }

    @Override
    public String toString() {
        return "PurgePacing[ratio=" + ratio + "]";
    }
}
