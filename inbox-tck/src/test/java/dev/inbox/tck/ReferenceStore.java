package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckPage;
import dev.inbox.spi.StuckQuery;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The simplest correct store: one lock around a map. The kit must pass it; its deliberately
 * broken subclasses must fail. Subclasses override the hooks to break one thing each.
 */
class ReferenceStore implements InboxStore {

    /** One record: IN_PROGRESS when {@code completed} is false; absent from {@code goneAt} on. */
    record Rec(
            String owner,
            boolean completed,
            long expiresAt,
            long goneAt,
            @Nullable String fingerprint,
            byte @Nullable [] result) {

        Rec(String owner, boolean completed, long expiresAt, long goneAt, @Nullable String fingerprint) {
            this(owner, completed, expiresAt, goneAt, fingerprint, null);
        }
    }

    /** The longest result the reference store keeps. */
    static final int MAX_RESULT_BYTES = 4096;

    final Map<String, Rec> records;
    final long grace;
    private volatile boolean closed;

    ReferenceStore(Duration grace) {
        this(grace, new HashMap<>());
    }

    /** A store on {@code records}, which other instances may share (one table, many instances). */
    ReferenceStore(Duration grace, Map<String, Rec> records) {
        this.grace = grace.toNanos();
        this.records = records;
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
        long expiresAt = now + request.lease().toNanos();
        Rec fresh = new Rec(owner, false, expiresAt, expiresAt + grace, request.fingerprint());
        if (old == null || now - goneAt(old) >= 0) {
            write(k, fresh);
            return ClaimResult.acquired();
        }
        if (old.completed) {
            return ClaimResult.duplicate(
                            now - old.expiresAt >= 0,
                            FingerprintCheck.compare(old.fingerprint, request.fingerprint()),
                            old.result)
                    .withPastRetention(Duration.ofNanos(now - old.expiresAt));
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
        return complete(key, owner, retention, null, false);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        return complete(key, owner, retention, result, true);
    }

    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    private boolean complete(
            InboxKey key, OwnerToken owner, Duration retention, byte @Nullable [] result, boolean keepsResult) {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(owner, "owner");
        InboxArguments.requirePositive(retention, "retention");
        byte[] kept = keepsResult
                ? InboxArguments.requireResult(result, maxResultBytes(), this).clone()
                : null;
        ensureOpen();
        synchronized (records) {
            Rec old = records.get(mapKey(key));
            if (old == null || !old.owner.equals(owner.value()) || live(old) == null) {
                return false;
            }
            if (!old.completed) {
                long expiresAt = System.nanoTime() + retention.toNanos();
                records.put(mapKey(key), new Rec(old.owner, true, expiresAt, expiresAt + grace, old.fingerprint, kept));
            }
            return true;
        }
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(owner, "owner");
        InboxArguments.requirePositive(lease, "lease");
        ensureOpen();
        synchronized (records) {
            Rec old = records.get(mapKey(key));
            if (old == null || old.completed || !old.owner.equals(owner.value()) || live(old) == null) {
                return false;
            }
            long expiresAt = System.nanoTime() + lease.toNanos();
            records.put(mapKey(key), new Rec(old.owner, false, expiresAt, expiresAt + grace, old.fingerprint));
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
        return System.nanoTime() - goneAt(rec) >= 0 ? null : rec;
    }

    /** When a record counts as absent: its own grace; a broken store may use another. */
    long goneAt(Rec rec) {
        return rec.goneAt;
    }

    @Override
    public InboxAdmin admin() {
        ensureOpen();
        return new ReferenceAdmin();
    }

    /** The admin operations on the map; broken stores override one thing each. */
    class ReferenceAdmin implements InboxAdmin {

        @Override
        public Optional<RecordView> inspect(InboxKey key) {
            InboxArguments.requireNonNull(key, "key");
            ensureOpen();
            synchronized (records) {
                Rec rec = records.get(mapKey(key));
                return rec == null ? Optional.empty() : Optional.of(view(key, rec, System.nanoTime()));
            }
        }

        @Override
        public List<RecordView> stuck(StuckQuery query) {
            InboxArguments.requireNonNull(query, "query");
            ensureOpen();
            StuckPage page = new StuckPage(query);
            long now = System.nanoTime();
            for (Map.Entry<InboxKey, Rec> e : snapshot().entrySet()) {
                page.offer(view(e.getKey(), e.getValue(), now), millis(now, now));
            }
            return page.records();
        }

        @Override
        public RecordCounts count(String consumer) {
            InboxKey.validate(consumer, "consumer");
            ensureOpen();
            RecordCounts counts = RecordCounts.NONE;
            long now = System.nanoTime();
            for (Map.Entry<InboxKey, Rec> e : snapshot().entrySet()) {
                if (e.getKey().consumer().equals(consumer)) {
                    counts = counts.plus(view(e.getKey(), e.getValue(), now).state());
                }
            }
            return counts;
        }

        @Override
        public boolean releaseLease(InboxKey key) {
            InboxArguments.requireNonNull(key, "key");
            ensureOpen();
            synchronized (records) {
                Rec rec = records.get(mapKey(key));
                if (rec == null || rec.completed || live(rec) == null) {
                    return false;
                }
                records.remove(mapKey(key));
                return true;
            }
        }

        @Override
        public boolean forget(InboxKey key) {
            InboxArguments.requireNonNull(key, "key");
            ensureOpen();
            synchronized (records) {
                Rec rec = records.get(mapKey(key));
                return rec != null && live(rec) != null && records.remove(mapKey(key)) != null;
            }
        }

        /** The records by key, copied under the lock. */
        Map<InboxKey, Rec> snapshot() {
            Map<InboxKey, Rec> copy = new HashMap<>();
            synchronized (records) {
                records.forEach((k, rec) -> {
                    int zero = k.indexOf(0);
                    copy.put(InboxKey.of(k.substring(0, zero), k.substring(zero + 1)), rec);
                });
            }
            return copy;
        }

        RecordView view(InboxKey key, Rec rec, long now) {
            return RecordView.ofMillis(
                    key,
                    rec.completed,
                    rec.owner,
                    millis(now, now),
                    millis(rec.expiresAt, now),
                    millis(goneAt(rec), now),
                    rec.fingerprint,
                    rec.result == null ? null : rec.result.length);
        }

        /** The epoch milliseconds of {@code nanos} (of {@link System#nanoTime()}), read at {@code now}. */
        private long millis(long nanos, long now) {
            return System.currentTimeMillis() + Math.floorDiv(nanos - now, 1_000_000L);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
