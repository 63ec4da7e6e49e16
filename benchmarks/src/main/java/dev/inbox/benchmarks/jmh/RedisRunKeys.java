package dev.inbox.benchmarks.jmh;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.List;

/**
 * Removes the keys a Redis benchmark wrote: a run writes hundreds of thousands of records that
 * otherwise stay for their grace (an hour), and every {@code SCAN} on that server — the store kit's
 * admin rules, a storm's count — walks them all meanwhile.
 */
final class RedisRunKeys {

    private RedisRunKeys() {}

    /** {@code UNLINK}s every key matching {@code pattern}, a page of {@code SCAN} at a time. */
    static void unlink(RedisClient client, String pattern) {
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            ScanArgs matching = ScanArgs.Builder.matches(pattern).limit(10_000);
            KeyScanCursor<byte[]> cursor = connection.sync().scan(matching);
            while (true) {
                List<byte[]> keys = cursor.getKeys();
                if (!keys.isEmpty()) {
                    connection.sync().unlink(keys.toArray(new byte[0][]));
                }
                if (cursor.isFinished()) {
                    return;
                }
                cursor = connection.sync().scan(cursor, matching);
            }
        }
    }
}
