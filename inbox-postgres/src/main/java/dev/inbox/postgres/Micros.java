package dev.inbox.postgres;

import java.time.Duration;

/** Durations as PostgreSQL interval microseconds, capped so that {@code now() + d} stays in range. */
final class Micros {

    /** 100 years: far beyond any lease or retention, and exact as a double. */
    static final long MAX = Duration.ofDays(36_525).toNanos() / 1_000;

    private Micros() {}

    static long of(Duration duration) {
        if (duration.compareTo(Duration.ofNanos(MAX * 1_000)) >= 0) {
            return MAX;
        }
        return Math.max(1, duration.toNanos() / 1_000);
    }
}
