package dev.inbox.caffeine;

import java.time.Duration;

/** Duration arithmetic on a nanosecond ticker that saturates instead of overflowing. */
final class Nanos {

    private Nanos() {}

    /** {@code duration} in nanoseconds, capped at {@link Long#MAX_VALUE} / 4. */
    static long of(Duration duration) {
        long cap = Long.MAX_VALUE / 4;
        return duration.compareTo(Duration.ofNanos(cap)) >= 0 ? cap : duration.toNanos();
    }

    /** True when instant {@code deadline} of the ticker is at or before {@code now}. */
    static boolean reached(long now, long deadline) {
        return now - deadline >= 0;
    }
}
