package dev.inbox.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code SCAN} with a {@code MATCH} over the whole key space, a page at a time (Lettuce's cluster
 * connection scans every primary in turn): how the layout copy and the admin's listings read
 * records, never on the claim path.
 */
final class RedisScan {

    /** Keys asked of the server per {@code SCAN} call. */
    static final int PAGE = 1_000;

    private RedisScan() {}

    /** Hands each page of key names matching {@code pattern} to {@code page}, until the scan ends. */
    static void forEachPage(RedisConnection redis, String what, byte[] pattern, Consumer<List<byte[]>> page) {
        ScanArgs match = ScanArgs.Builder.matches(new String(pattern, StandardCharsets.US_ASCII))
                .limit(PAGE);
        KeyScanCursor<byte[]> keys = RedisCodec.call(what, () -> redis.sync.scan(match));
        while (true) {
            page.accept(keys.getKeys());
            if (keys.isFinished()) {
                return;
            }
            ScanCursor cursor = keys;
            keys = RedisCodec.call(what, () -> redis.sync.scan(cursor, match));
        }
    }
}
