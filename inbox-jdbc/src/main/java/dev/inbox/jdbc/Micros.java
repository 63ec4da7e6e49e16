package dev.inbox.jdbc;

import java.time.Duration;

/**
 * Durations in the form JDBC stores bind them to SQL intervals: whole microseconds, at least 1,
 * at most 100 years (which keeps {@code now + d} inside every database's date range and exact as
 * a double).
 */
public final class Micros {

    /** 100 years, in microseconds. */
    public static final long MAX = Duration.ofDays(36_525).toNanos() / 1_000;

    private Micros() {}

    /** {@code duration} in microseconds, clamped to [1, {@link #MAX}]. */
    public static long of(Duration duration) {
        if (duration.compareTo(Duration.ofNanos(MAX * 1_000)) >= 0) {
            return MAX;
        }
        return Math.max(1, duration.toNanos() / 1_000);
    }
}
