package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireNonNegative;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import java.time.Duration;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Measures redelivery lag from the duplicates an inbox meets, and recommends a retention. Each
 * duplicate whose store reported {@link ClaimResult#pastRetention()} arrived {@code retention +
 * pastRetention} after its event was completed (assuming it was completed with this retention);
 * the longest such lag, plus the longest processing may take (the lease, in lease mode), plus a
 * quarter of that as safety margin, rounded up to the millisecond, is the recommended retention.
 * Duplicates that arrive after a record's grace are not seen here: they look like new events. A
 * grace of at least the retention keeps the late ones visible.
 *
 * <p>Thread-safe and allocation-free per observation; {@link Inbox} and {@code TransactionalInbox}
 * keep one each.
 */
public final class RetentionAdvisor {

    private final Duration retention;
    private final long processingNanos;
    private final LongAdder measured = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final LongAccumulator longestLag = new LongAccumulator(Math::max, Long.MIN_VALUE);
    private final LongAccumulator longestPast = new LongAccumulator(Math::max, 0);

    /**
     * An advisor for records completed with {@code retention}, whose processing takes at most
     * {@code processing} (the lease in lease mode; zero where the claim and the work share a
     * transaction).
     *
     * @throws IllegalArgumentException if {@code retention} is not positive or {@code processing}
     *     is null or negative
     */
    public RetentionAdvisor(Duration retention, Duration processing) {
        this.retention = requirePositive(retention, "retention");
        this.processingNanos = saturatedNanos(requireNonNegative(processing, "processing"));
    }

    /**
     * Takes in a claim's answer; returns the redelivery lag it measured (for a duplicate whose
     * store reported its expiry), or null.
     */
    public @Nullable Duration observe(ClaimResult result) {
        Duration past = result.pastRetention();
        if (result.status() != ClaimStatus.DUPLICATE || past == null) {
            return null;
        }
        long pastNanos = saturatedNanos(past);
        long lag = Math.max(0, saturatedAdd(saturatedNanos(retention), pastNanos));
        measured.increment();
        longestLag.accumulate(lag);
        if (result.isLate()) {
            late.increment();
            longestPast.accumulate(Math.max(0, pastNanos));
        }
        return Duration.ofNanos(lag);
    }

    /** What was measured so far, and the retention it recommends. */
    public RetentionAdvice advice() {
        long count = measured.sum();
        long lag = count == 0 ? 0 : longestLag.get();
        Duration recommended = null;
        if (count > 0) {
            long base = saturatedAdd(lag, processingNanos);
            long withMargin = saturatedAdd(base, base / 4);
            long millis = withMargin / 1_000_000L + (withMargin % 1_000_000L > 0 ? 1 : 0);
            recommended = Duration.ofMillis(Math.max(1, millis));
        }
        return new RetentionAdvice(
                retention, count, Duration.ofNanos(lag), late.sum(), Duration.ofNanos(longestPast.get()), recommended);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
