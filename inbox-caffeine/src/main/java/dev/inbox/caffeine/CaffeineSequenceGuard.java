package dev.inbox.caffeine;

import static dev.inbox.spi.InboxArguments.requireArgument;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An in-memory {@link SequenceGuard}: the last applied sequence number of each entity, advanced by
 * one atomic {@code compute}. State lives in this JVM only and is lost on restart, when every
 * entity starts again at {@link SequenceGuard#FIRST_SEQUENCE}; use a database-backed guard for a
 * fleet.
 *
 * <p>It never forgets an entity on its own (forgetting would turn every later event into a gap),
 * unless a maximum size is set, which evicts the least recently used entities.
 */
public final class CaffeineSequenceGuard implements SequenceGuard {

    private final Cache<String, Long> lastApplied;
    private final AtomicBoolean closed = new AtomicBoolean();

    private CaffeineSequenceGuard(Cache<String, Long> lastApplied) {
        this.lastApplied = lastApplied;
    }

    /** A guard that remembers every entity it has seen. */
    public static CaffeineSequenceGuard create() {
        return new CaffeineSequenceGuard(Caffeine.newBuilder().build());
    }

    /**
     * A guard that remembers at most {@code maximumSize} entities, forgetting the least recently
     * used; a forgotten entity expects {@link SequenceGuard#FIRST_SEQUENCE} again.
     *
     * @throws IllegalArgumentException if not positive
     */
    public static CaffeineSequenceGuard bounded(long maximumSize) {
        requireArgument(maximumSize > 0, "maximumSize must be positive but was " + maximumSize);
        return new CaffeineSequenceGuard(
                Caffeine.newBuilder().maximumSize(maximumSize).build());
    }

    @Override
    public SequenceResult advance(InboxKey entity, long seq) {
        SequenceGuard.validate(entity, seq);
        if (closed.get()) {
            throw new IllegalStateException("the sequence guard is closed");
        }
        SequenceResult[] result = new SequenceResult[1];
        lastApplied.asMap().compute(entity.consumer() + '\0' + entity.id(), (k, last) -> {
            long expected = last == null ? FIRST_SEQUENCE : last + 1;
            result[0] = SequenceResult.decide(seq, expected);
            return result[0].isApplied() ? Long.valueOf(seq) : last;
        });
        return result[0];
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            lastApplied.invalidateAll();
        }
    }
}
