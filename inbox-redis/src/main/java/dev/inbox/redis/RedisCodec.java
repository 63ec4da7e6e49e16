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

    /**
     * What a record written without a script (the store's new-key claim, a plain {@code SET NX GET})
     * holds where the expiry goes, plus its writer's grace in ms: its lease ends when its TTL falls
     * to that grace. Far past any clock's milliseconds, and with every grace the store takes (at most
     * 100 years, {@link #millis}) below 2^53: exact as a Lua number.
     */
    static final long LEASE_IN_TTL = 9_000_000_000_000_000L;

    private RedisCodec() {}

    /**
     * When a record's lease or retention ends, in server ms: its expiry field, or for a record that
     * keeps its lease in its TTL ({@link #LEASE_IN_TTL}) what is left of the TTL at {@code now} less
     * its writer's grace.
     */
    static long expiresAt(long field, long now, long ttl) {
        return field >= LEASE_IN_TTL ? now + ttl - (field - LEASE_IN_TTL) : field;
    }

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
        return ascii(Long.toString(wholeMillis(duration, min)));
    }

    /** {@code duration} in whole milliseconds, at least {@code min}, at most 100 years. */
    static long wholeMillis(Duration duration, long min) {
        long ms = duration.compareTo(Duration.ofMillis(MAX_MILLIS)) >= 0 ? MAX_MILLIS : duration.toMillis();
        return Math.max(min, ms);
    }

    /**
     * The answer of the claim script for its {@code index}th key: {@code [1, takeover, new key]}, {@code [2,
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

    /** Whether the claim script found its {@code index}th key absent (a new key), from its reply. */
    @SuppressWarnings("unchecked")
    static boolean wasNewKey(List<Object> replies, int index) {
        List<Object> reply = (List<Object>) replies.get(index);
        return (Long) reply.get(0) == 1 && reply.size() > 2 && (Long) reply.get(2) == 1;
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
