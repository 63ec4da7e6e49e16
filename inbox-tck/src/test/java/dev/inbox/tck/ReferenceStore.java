package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The simplest correct store: one lock around a map. The kit must pass it; its deliberately
 * broken subclasses must fail. Subclasses override the hooks to break one thing each.
 */
class ReferenceStore implements InboxStore {

    /** One record: IN_PROGRESS when {@code completed} is false. */
    record Rec(
            String owner,
            boolean completed,
            long expiresAt,
            @Nullable String fingerprint) {}

    final Map<String, Rec> records = new HashMap<>();
    private final long grace;
    private volatile boolean closed;

    ReferenceStore(Duration grace) {
        this.grace = grace.toNanos();
    }

    /** The map key of {@code key}; a broken store may fold it. */
    String mapKey(InboxKey key) {
        return key.consumer() + '\0' + key.id();
    }

    /** Reads a record; a broken store may do so without the lock. */
    @Nullable
    Rec read(String k) {
        synchronized (records) {
            return records.get(k);
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        InboxArguments.requireNonNull(request, "request");
        ensureOpen();
        synchronized (records) {
            return decideAndWrite(request);
        }
    }

    final ClaimResult decideAndWrite(ClaimRequest request) {
        String k = mapKey(request.key());
        long now = System.nanoTime();
        Rec old = read(k);
        String owner = request.owner().value();
        Rec fresh = new Rec(owner, false, now + request.lease().toNanos(), request.fingerprint());
        if (old == null || now - (old.expiresAt + grace) >= 0) {
            write(k, fresh);
            return ClaimResult.acquired();
        }
        if (old.completed) {
            return ClaimResult.duplicate(
                    now - old.expiresAt >= 0, FingerprintCheck.compare(old.fingerprint, request.fingerprint()));
        }
        if (old.owner.equals(owner)) {
            write(k, fresh);
            return ClaimResult.acquired();
        }
        if (now - old.expiresAt >= 0) {
            write(k, fresh);
            return ClaimResult.takenOver();
        }
        return ClaimResult.busy();
    }

    void write(String k, Rec rec) {
        synchronized (records) {
            records.put(k, rec);
        }
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(owner, "owner");
        InboxArguments.requirePositive(retention, "retention");
        ensureOpen();
        synchronized (records) {
            Rec old = records.get(mapKey(key));
            if (old == null || !old.owner.equals(owner.value()) || live(old) == null) {
                return false;
            }
            if (!old.completed) {
                records.put(
                        mapKey(key),
                        new Rec(old.owner, true, System.nanoTime() + retention.toNanos(), old.fingerprint));
            }
            return true;
        }
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(owner, "owner");
        ensureOpen();
        synchronized (records) {
            Rec old = records.get(mapKey(key));
            if (old == null || old.completed || !old.owner.equals(owner.value()) || live(old) == null) {
                return false;
            }
            records.remove(mapKey(key));
            return true;
        }
    }

    @Override
    public long purge() {
        ensureOpen();
        synchronized (records) {
            int before = records.size();
            records.values().removeIf(r -> live(r) == null);
            return before - records.size();
        }
    }

    private @Nullable Rec live(Rec rec) {
        return System.nanoTime() - (rec.expiresAt + grace) >= 0 ? null : rec;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
