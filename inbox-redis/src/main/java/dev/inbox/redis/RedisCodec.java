package dev.inbox.redis;

import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * How the Redis store and its sequence guard talk to the scripts: arguments as ASCII digits and
 * tokens, replies turned into answers, and Lettuce's failures into {@link InboxStoreException}s.
 */
final class RedisCodec {

    private static final long MAX_MILLIS = Duration.ofDays(36_525).toMillis();

    private RedisCodec() {}

    static <T> T call(String operation, Supplier<T> call) {
        try {
            return call.get();
        } catch (RedisException e) {
            throw failure(operation, e);
        }
    }

    static InboxStoreException failure(String operation, Throwable cause) {
        // A script or command error will fail again; a timeout or a lost connection may not.
        boolean retryable = !(cause instanceof RedisCommandExecutionException);
        return new InboxStoreException(operation + " failed: " + cause.getMessage(), cause, retryable);
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code duration} in whole milliseconds as ASCII digits, at least {@code min}, at most 100 years. */
    static byte[] millis(Duration duration, long min) {
        long ms = duration.compareTo(Duration.ofMillis(MAX_MILLIS)) >= 0 ? MAX_MILLIS : duration.toMillis();
        return ascii(Long.toString(Math.max(min, ms)));
    }

    /**
     * The answer of the claim script for its {@code index}th key: {@code [1, takeover]}, {@code [2,
     * late, fingerprint check, ms past expiry]} (followed by the stored result when the record keeps
     * one) or busy.
     */
    @SuppressWarnings("unchecked")
    static ClaimResult decodeClaim(List<Object> replies, int index) {
        List<Object> reply = (List<Object>) replies.get(index);
        long code = (Long) reply.get(0);
        if (code == 1) {
            return (Long) reply.get(1) == 1 ? ClaimResult.takenOver() : ClaimResult.acquired();
        }
        if (code == 2) {
            return ClaimResult.duplicate(
                            (Long) reply.get(1) == 1,
                            FingerprintCheck.fromCode((Long) reply.get(2)),
                            reply.size() > 4 ? (byte[]) reply.get(4) : null)
                    .withPastRetention(Duration.ofMillis((Long) reply.get(3)));
        }
        return ClaimResult.busy();
    }

    /** Waits for a pipelined reply until {@code deadline} ({@link System#nanoTime()}); a failure becomes {@link InboxStoreException}. */
    static <T> T await(String what, RedisFuture<T> reply, long deadline) {
        try {
            return reply.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw failure(what, e.getCause());
        } catch (TimeoutException e) {
            throw new InboxStoreException(what + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InboxStoreException(what + " was interrupted", e);
        }
    }
}
