package dev.inbox;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an adapter answers work that threw: how long it waits before the event is tried again, and
 * after how many failed attempts it gives up and hands the message to its recoverer (a dead-letter
 * topic or queue). The adapter decides what giving up means for its broker; the policy only counts
 * and waits. An adapter without a recoverer never gives up, whatever the policy says: a message
 * whose work keeps failing holds back what follows it rather than being dropped.
 *
 * <pre>{@code
 * FailurePolicy.attempts(10, Duration.ofSeconds(1)).exponential(2.0, Duration.ofMinutes(1))
 * }</pre>
 *
 * <p>Instances are immutable and thread-safe; {@link #attemptsOf()} gives the per-message counter an
 * adapter keeps.
 */
public final class FailurePolicy {

    /** How many messages' failed attempts an adapter remembers at most (the oldest are forgotten). */
    static final int REMEMBERED = 10_000;

    private final int maxAttempts;
    private final Duration backoff;
    private final double multiplier;
    private final Duration maxBackoff;

    private FailurePolicy(int maxAttempts, Duration backoff, double multiplier, Duration maxBackoff) {
        this.maxAttempts = maxAttempts;
        this.backoff = backoff;
        this.multiplier = multiplier;
        this.maxBackoff = maxBackoff;
    }

    /**
     * Tries the work again after {@code backoff}, for as long as it fails: the recoverer never gets
     * the message.
     *
     * @throws IllegalArgumentException if {@code backoff} is null or not positive
     */
    public static FailurePolicy retryForever(Duration backoff) {
        requirePositive(backoff, "backoff");
        return new FailurePolicy(Integer.MAX_VALUE, backoff, 1.0, backoff);
    }

    /**
     * Gives up after {@code maxAttempts} failed attempts of one message (the first delivery
     * included), waiting {@code backoff} before each retry: {@code attempts(1, …)} hands the first
     * failure to the recoverer, {@code attempts(10, …)} retries nine times first.
     *
     * @throws IllegalArgumentException if {@code maxAttempts} is below 1, or {@code backoff} is null
     *     or not positive
     */
    public static FailurePolicy attempts(int maxAttempts, Duration backoff) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
        }
        requirePositive(backoff, "backoff");
        return new FailurePolicy(maxAttempts, backoff, 1.0, backoff);
    }

    /**
     * This policy with a back-off that grows by {@code multiplier} after each failed attempt of a
     * message, up to {@code maxBackoff}.
     *
     * @throws IllegalArgumentException if {@code multiplier} is below 1 or not finite, or {@code
     *     maxBackoff} is null or shorter than the first back-off
     */
    public FailurePolicy exponential(double multiplier, Duration maxBackoff) {
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number of at least 1, not " + multiplier);
        }
        if (maxBackoff == null || maxBackoff.compareTo(backoff) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoff must not be null or shorter than the first back-off " + backoff + ": " + maxBackoff);
        }
        return new FailurePolicy(maxAttempts, backoff, multiplier, maxBackoff);
    }

    /** The failed attempts of one message after which the policy gives up; {@code Integer.MAX_VALUE} for never. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** True once a message has failed {@code failedAttempts} times and the policy gives up on it. */
    public boolean givesUpAfter(int failedAttempts) {
        return failedAttempts >= maxAttempts;
    }

    /**
     * How long to wait before the next attempt of a message that has failed {@code failedAttempts}
     * times (1 for the first failure): the first back-off, times the multiplier for each failure
     * before the last, at most the maximum.
     *
     * @throws IllegalArgumentException if {@code failedAttempts} is below 1
     */
    public Duration backoffAfter(int failedAttempts) {
        if (failedAttempts < 1) {
            throw new IllegalArgumentException("failedAttempts must be at least 1, not " + failedAttempts);
        }
        if (multiplier == 1.0) {
            return backoff;
        }
        double nanos = backoff.toNanos() * Math.pow(multiplier, failedAttempts - 1);
        return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
    }

    /** A new counter of failed attempts per message, for one adapter (one consumer loop). */
    public Attempts attemptsOf() {
        return new Attempts();
    }

    @Override
    public String toString() {
        return "FailurePolicy[" + (maxAttempts == Integer.MAX_VALUE ? "retry forever" : maxAttempts + " attempts")
                + ", back-off " + backoff + (multiplier == 1.0 ? "" : " x" + multiplier + " up to " + maxBackoff)
                + "]";
    }

    private static void requirePositive(Duration duration, String name) {
        if (duration == null || duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, not " + duration);
        }
    }

    /**
     * The failed attempts of each message one adapter has seen fail, by an identity the adapter
     * chooses (a Kafka record's partition and offset, a broker's message id). It lives in memory: a
     * consumer that restarts, or a message that moves to another consumer, starts counting again.
     * It remembers the {@value FailurePolicy#REMEMBERED} messages that failed last. Thread-safe.
     */
    public final class Attempts {

        private final Map<String, Integer> failed = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
                return size() > REMEMBERED;
            }
        };

        private Attempts() {}

        /**
         * Counts one more failed attempt of {@code message}.
         *
         * @return how many times it has failed now
         */
        public synchronized int failed(String message) {
            return failed.merge(message, 1, Integer::sum);
        }

        /** Forgets {@code message}: its work succeeded, or it was handed to the recoverer. */
        public synchronized void forget(String message) {
            failed.remove(message);
        }

        /** Whether any message's failures are remembered: when not, there is nothing to {@link #forget}. */
        public synchronized boolean any() {
            return !failed.isEmpty();
        }

        /** The policy these attempts are counted for. */
        public FailurePolicy policy() {
            return FailurePolicy.this;
        }
    }
}
