package dev.inbox.redis;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.ScanningInboxAdmin;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link RedisInboxStore#admin()}. {@code inspect}, {@code releaseLease} and {@code forget} are one
 * script on the record's key (the server's time read with it). {@code stuck} and {@code count}
 * {@code SCAN} the whole key space with a {@code MATCH} on the consumer's keys (every primary of a
 * Cluster), then read each page's records in one pipeline of {@code GET} and {@code PTTL}: a cost
 * proportional to all the keys of the server, every call, which is why they are operators' tools.
 * Records past expiry + grace are gone (their TTL), so none shows EXPIRED.
 */
final class RedisAdmin extends ScanningInboxAdmin {

    private static final RedisScript INSPECT = RedisScript.load("inspect");
    private static final RedisScript FORGET = RedisScript.load("forget");

    private final RedisInboxStore store;

    RedisAdmin(RedisInboxStore store) {
        this.store = store;
    }

    @Override
    public Optional<RecordView> inspect(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        store.ensureOpen();
        byte[] name = store.keys().record(key);
        List<Object> reply = RedisCodec.call(
                "inspection of " + key, () -> INSPECT.run(store.redis().sync, ScriptOutputType.MULTI, name));
        if (reply.size() == 1) {
            return Optional.empty();
        }
        return Optional.of(view(key, (byte[]) reply.get(1), (Long) reply.get(0), (Long) reply.get(2)));
    }

    @Override
    protected void ensureOpen() {
        store.ensureOpen();
    }

    @Override
    protected boolean delete(String what, InboxKey key, boolean heldOnly) {
        String which = heldOnly ? "I" : "*";
        byte[] name = store.keys().record(key);
        Long done = RedisCodec.call(
                what, () -> FORGET.run(store.redis().sync, ScriptOutputType.INTEGER, name, RedisCodec.ascii(which)));
        if (done == 1) {
            store.replicate(what, name);
        }
        return done == 1;
    }

    @Override
    protected void scan(String what, String consumer, Visitor visit) {
        RedisConnection redis = store.redis();
        RedisKeys keys = store.keys();
        Consumer<List<byte[]>> readPage = names -> {
            List<InboxKey> parsed = new ArrayList<>();
            List<byte[]> kept = new ArrayList<>();
            for (byte[] name : names) {
                InboxKey key = keys.parse(name);
                if (key != null && key.consumer().equals(consumer)) {
                    parsed.add(key);
                    kept.add(name);
                }
            }
            if (kept.isEmpty()) {
                return;
            }
            List<RedisFuture<byte[]>> values = new ArrayList<>(kept.size());
            List<RedisFuture<Long>> ttls = new ArrayList<>(kept.size());
            RedisFuture<List<byte[]>> time = RedisCodec.call(what, () -> {
                for (byte[] name : kept) {
                    values.add(redis.async.get(name));
                    ttls.add(redis.async.pttl(name));
                }
                return redis.async.time();
            });
            long deadline = System.nanoTime() + redis.timeout.toNanos();
            List<byte[]> clock = RedisCodec.await(what, time, deadline);
            long now = Long.parseLong(ascii(clock.get(0))) * 1000 + Long.parseLong(ascii(clock.get(1))) / 1000;
            for (int i = 0; i < kept.size(); i++) {
                byte[] value = RedisCodec.await(what, values.get(i), deadline);
                Long ttl = RedisCodec.await(what, ttls.get(i), deadline);
                if (value != null && ttl != null && ttl > 0) { // gone since the scan otherwise
                    visit.visit(view(parsed.get(i), value, now, ttl), now);
                }
            }
        };
        RedisScan.forEachPage(redis, what, keys.consumerPattern(consumer), readPage);
    }

    /** A record {@code I|C <expires ms> <owner>[ <fingerprint>][\n<result>]} with {@code ttl} ms to live at {@code now}. */
    private static RecordView view(InboxKey key, byte[] value, long now, long ttl) {
        int newline = indexOf(value, (byte) '\n');
        String header = new String(value, 0, newline < 0 ? value.length : newline, StandardCharsets.UTF_8);
        String[] parts = header.split(" ");
        @Nullable String fingerprint = parts.length > 3 ? parts[3] : null;
        return RecordView.ofMillis(
                key,
                parts[0].equals("C"),
                parts[2],
                now,
                RedisCodec.expiresAt(Long.parseLong(parts[1]), now, ttl),
                now + Math.max(ttl, 0),
                fingerprint,
                newline < 0 ? null : value.length - newline - 1);
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static String ascii(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
