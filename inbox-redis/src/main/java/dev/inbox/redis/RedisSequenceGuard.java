package dev.inbox.redis;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import dev.inbox.SequenceStatus;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Redis {@link SequenceGuard}: the last applied number of each entity in a key {@code
 * <prefix>:seq:{<consumer as hex>}:<entity>}, advanced by one Lua script, so among concurrent
 * deliveries of one number exactly one is APPLIED. Sequence numbers above 2^53 are rejected: Lua
 * compares numbers as doubles. The keys carry no TTL. Obtain it from {@link
 * RedisInboxStore#sequenceGuard()}; it shares the store's connection.
 */
public final class RedisSequenceGuard implements SequenceGuard {

    private static final RedisScript ADVANCE = RedisScript.load("advance");
    private static final long MAX_SEQUENCE = 1L << 53;

    private final RedisInboxStore store;
    private final AtomicBoolean closed = new AtomicBoolean();

    RedisSequenceGuard(RedisInboxStore store) {
        this.store = store;
    }

    @Override
    public SequenceResult advance(InboxKey entity, long seq) {
        SequenceGuard.validate(entity, seq);
        if (seq > MAX_SEQUENCE) {
            throw new IllegalArgumentException("seq must be at most 2^53 in Redis but was " + seq);
        }
        if (closed.get()) {
            throw new IllegalStateException("the sequence guard is closed");
        }
        store.ensureOpen();
        List<Object> reply = RedisCodec.call(
                "advance of " + entity,
                () -> ADVANCE.run(
                        store.redis().sync,
                        ScriptOutputType.MULTI,
                        store.keys().sequence(entity),
                        RedisCodec.ascii(Long.toString(seq))));
        long expected = (Long) reply.get(1);
        return (Long) reply.get(0) == 1
                ? new SequenceResult(SequenceStatus.APPLIED, seq)
                : SequenceResult.decide(seq, expected);
    }

    /** Later calls throw {@link IllegalStateException}; the store's connection stays open. */
    @Override
    public void close() {
        closed.set(true);
    }
}
