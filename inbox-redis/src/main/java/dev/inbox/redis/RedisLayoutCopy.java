package dev.inbox.redis;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link RedisInboxStore#copyRecordsFrom(RedisKeyLayout)}: a {@code SCAN} over the old layout's
 * record keys (Lettuce's cluster connection scans every primary in turn), and for each page one
 * pipeline of {@code GET} and {@code PTTL}, then one of {@code SET NX PX} under the new names.
 */
final class RedisLayoutCopy {

    private static final int PAGE = 1_000;

    private RedisLayoutCopy() {}

    static long copy(RedisConnection redis, RedisKeys from, RedisKeys to) {
        String what = "copy of the records from the " + from.layout() + " layout";
        ScanArgs match = ScanArgs.Builder.matches(new String(from.recordPattern(), StandardCharsets.US_ASCII))
                .limit(PAGE);
        long copied = 0;
        KeyScanCursor<byte[]> page = RedisCodec.call(what, () -> redis.sync.scan(match));
        while (true) {
            copied += copyPage(redis, what, from, to, page.getKeys());
            if (page.isFinished()) {
                return copied;
            }
            ScanCursor cursor = page;
            page = RedisCodec.call(what, () -> redis.sync.scan(cursor, match));
        }
    }

    private static long copyPage(RedisConnection redis, String what, RedisKeys from, RedisKeys to, List<byte[]> names) {
        List<byte[]> old = new ArrayList<>();
        List<InboxKey> parsed = new ArrayList<>();
        for (byte[] name : names) {
            InboxKey key = from.parse(name);
            if (key != null) {
                old.add(name);
                parsed.add(key);
            }
        }
        List<RedisFuture<byte[]>> values = new ArrayList<>(old.size());
        List<RedisFuture<Long>> ttls = new ArrayList<>(old.size());
        RedisCodec.call(what, () -> {
            for (byte[] name : old) {
                values.add(redis.async.get(name));
                ttls.add(redis.async.pttl(name));
            }
            return null;
        });
        long deadline = System.nanoTime() + redis.timeout.toNanos();
        List<RedisFuture<String>> writes = new ArrayList<>(old.size());
        for (int i = 0; i < old.size(); i++) {
            byte[] value = await(what, values.get(i), deadline);
            Long ttl = await(what, ttls.get(i), deadline);
            if (value != null && ttl != null && ttl > 0) { // gone, or expired, since the scan
                byte[] name = to.record(parsed.get(i));
                writes.add(RedisCodec.call(
                        what,
                        () -> redis.async.set(name, value, SetArgs.Builder.nx().px(ttl))));
            }
        }
        long copied = 0;
        for (RedisFuture<String> write : writes) {
            if (await(what, write, deadline) != null) {
                copied++;
            }
        }
        return copied;
    }

    private static <T> T await(String what, RedisFuture<T> reply, long deadline) {
        try {
            return reply.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw RedisCodec.failure(what, e.getCause());
        } catch (TimeoutException e) {
            throw new InboxStoreException(what + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InboxStoreException(what + " was interrupted", e);
        }
    }
}
