package dev.inbox;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What an inbox has seen of redelivery lag, and the retention it recommends: the window-sizing
 * formula {@code retention = longest redelivery lag + processing time + safety margin} fed with
 * measurements instead of guesses. See {@link RetentionAdvisor}.
 *
 * @param configured the retention the inbox completes records with
 * @param measured how many duplicates were measured (their store reported the record's expiry)
 * @param longestLag the longest time between an event's completion and a duplicate of it; zero
 *     before any
 * @param lateDuplicates how many measured duplicates arrived past retention (still caught, in
 *     grace)
 * @param longestPastRetention the longest a late duplicate arrived after its record's retention;
 *     zero before any
 * @param recommended the retention to configure, or null before any duplicate was measured
 */
public record RetentionAdvice(
        Duration configured,
        long measured,
        Duration longestLag,
        long lateDuplicates,
        Duration longestPastRetention,
        @Nullable Duration recommended) {

    /** True when the recommended retention is longer than the configured one. */
    public boolean isUndersized() {
        return recommended != null && recommended.compareTo(configured) > 0;
    }
}
