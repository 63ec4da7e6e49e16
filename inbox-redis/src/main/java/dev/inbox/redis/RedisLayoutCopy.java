package dev.inbox.redis;

import dev.inbox.InboxKey;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link RedisInboxStore#copyRecordsFrom(RedisKeyLayout)}: a {@code SCAN} over the old layout's
 * record keys (Lettuce's cluster connection scans every primary in turn), and for each page one
 * pipeline of {@code GET} and {@code PTTL}, then one of {@code SET NX PX} under the new names.
 */
final class RedisLayoutCopy {

    private RedisLayoutCopy() {}

    static long copy(RedisConnection redis, RedisKeys from, RedisKeys to) {
        String what = "copy of the records from the " + from.layout() + " layout";
        long[] copied = new long[1];
        RedisScan.forEachPage(
                redis, what, from.recordPattern(), names -> copied[0] += copyPage(redis, what, from, to, names));
        return copied[0];
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
            byte[] value = RedisCodec.await(what, values.get(i), deadline);
            Long ttl = RedisCodec.await(what, ttls.get(i), deadline);
            if (value != null && ttl != null && ttl > 0) { // gone, or expired, since the scan
                byte[] name = to.record(parsed.get(i));
                writes.add(RedisCodec.call(
                        what,
                        () -> redis.async.set(name, value, SetArgs.Builder.nx().px(ttl))));
            }
        }
        long copied = 0;
        for (RedisFuture<String> write : writes) {
            if (RedisCodec.await(what, write, deadline) != null) {
                copied++;
            }
        }
        return copied;
    }
}
