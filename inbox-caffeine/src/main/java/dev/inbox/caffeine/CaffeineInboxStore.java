package dev.inbox.caffeine;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNegative;
import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;
import static dev.inbox.spi.InboxArguments.requireResult;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.inbox.InboxKey;
import dev.inbox.caffeine.MemoryRecord.Done;
import dev.inbox.caffeine.MemoryRecord.Held;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A bounded in-memory {@link dev.inbox.spi.InboxStore} on Caffeine: the embedded default for tests,
 * demos and single-instance applications. Records live in this JVM only, so they are lost on
 * restart and not shared between instances: use a database-backed store for a fleet.
 *
 * <p><b>Algorithm.</b> Records are kept in a Caffeine cache keyed by {@code consumer + U+0000 +
 * id} (U+0000 never occurs in a key, so the join is unambiguous). Every operation is one atomic
 * {@code compute} on that entry, deciding with the store's ticker:
 *
 * <ol>
 *   <li>claim: no record, or one past expiry + grace → a new IN_PROGRESS record (ACQUIRED); the
 *       same owner's record → its lease renewed (ACQUIRED); another owner's expired lease →
 *       replaced (ACQUIRED, a takeover); another owner's live lease → BUSY; a COMPLETED record →
 *       DUPLICATE, late when past retention.
 *   <li>complete: the owner's IN_PROGRESS record becomes COMPLETED until now + retention.
 *   <li>release: the owner's IN_PROGRESS record is removed.
 * </ol>
 *
 * <p><b>Memory.</b> Each entry expires by itself shortly after expiry + grace, so the store needs no
 * purge to stay small; {@link #purge()} removes what is due at once and counts it. The store holds
 * at most {@link Builder#maximumSize(long)} records. Reaching it evicts live records, which lets
 * their duplicates through: size it above throughput × retention. Such evictions are counted by
 * {@link #evictedBeforeExpiry()} and logged. A completed key of 32 ASCII characters costs about
 * 235 bytes of heap (234.7 after GC over 1,000,000 keys on OpenJDK 17:
 * {@code benchmarks/results/caffeine-footprint.txt}; the command is in {@code docs/using-the-inbox.md}).
 */
public final class CaffeineInboxStore implements InboxStore {

    /** The longest result {@link #complete(InboxKey, OwnerToken, Duration, byte[])} keeps: 1 MiB. */
    public static final int MAX_RESULT_BYTES = 1 << 20;

    private static final System.Logger LOG = System.getLogger(CaffeineInboxStore.class.getName());

    /**
     * How long after expiry + grace Caffeine may drop an entry on its own. A purge scan finds
     * entries in this window and counts them; past it Caffeine's eviction counts them.
     */
    private static final long EVICTION_SLACK = Duration.ofSeconds(2).toNanos();

    private final Cache<String, MemoryRecord> records;
    private final Ticker ticker;
    private final long grace;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LongAdder expiredByCaffeine = new LongAdder();
    private final AtomicLong evictedLive = new AtomicLong();

    private CaffeineInboxStore(Builder builder) {
        this.ticker = builder.ticker;
        this.grace = Nanos.of(builder.grace);
        this.records = Caffeine.newBuilder()
                .maximumSize(builder.maximumSize)
                .ticker(ticker)
                .expireAfter(new PastGrace())
                .evictionListener(this::evicted)
                .build();
    }

    /** Starts configuring a store. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        ensureOpen();
        String owner = request.owner().value();
        long lease = Nanos.of(request.lease());
        @Nullable String fingerprint = request.fingerprint();
        ClaimResult[] result = new ClaimResult[1];
        records.asMap().compute(cacheKey(request.key()), (k, old) -> {
            long now = ticker.read();
            if (old == null || Nanos.reached(now, old.expiresAt + grace)) {
                result[0] = ClaimResult.acquired();
                return new Held(owner, now + lease, fingerprint);
            }
            if (old instanceof Done done) {
                result[0] = ClaimResult.duplicate(
                                Nanos.reached(now, done.expiresAt),
                                FingerprintCheck.compare(done.fingerprint, fingerprint),
                                done.result)
                        .withPastRetention(Duration.ofNanos(now - done.expiresAt));
                return old;
            }
            Held held = (Held) old;
            if (held.owner.equals(owner)) {
                result[0] = ClaimResult.acquired();
                return new Held(owner, now + lease, fingerprint != null ? fingerprint : held.fingerprint);
            }
            if (Nanos.reached(now, held.expiresAt)) {
                result[0] = ClaimResult.takenOver();
                return new Held(owner, now + lease, fingerprint);
            }
            result[0] = ClaimResult.busy();
            return old;
        });
        return result[0];
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        return complete(key, owner, retention, null, false);
    }

    /** Keeps a copy of {@code result} in the heap, at most {@link #MAX_RESULT_BYTES}. */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        return complete(key, owner, retention, result, true);
    }

    /** {@value #MAX_RESULT_BYTES}: mind the heap, since the store keeps every result it is given. */
    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    private boolean complete(
            InboxKey key, OwnerToken owner, Duration retention, byte @Nullable [] result, boolean keepsResult) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long keep = Nanos.of(requirePositive(retention, "retention"));
        byte[] kept =
                keepsResult ? requireResult(result, MAX_RESULT_BYTES, this).clone() : null;
        ensureOpen();
        boolean[] done = new boolean[1];
        long ownerHash = MemoryRecord.hashOwner(owner.value());
        records.asMap().computeIfPresent(cacheKey(key), (k, old) -> {
            long now = ticker.read();
            if (Nanos.reached(now, old.expiresAt + grace)) {
                return null; // counts as absent
            }
            if (old instanceof Held held && held.owner.equals(owner.value())) {
                done[0] = true;
                return new Done(ownerHash, now + keep, held.fingerprint, kept);
            }
            if (old instanceof Done completed && completed.ownerHash == ownerHash) {
                done[0] = true;
            }
            return old;
        });
        return done[0];
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long extension = Nanos.of(requirePositive(lease, "lease"));
        ensureOpen();
        boolean[] renewed = new boolean[1];
        records.asMap().computeIfPresent(cacheKey(key), (k, old) -> {
            long now = ticker.read();
            if (Nanos.reached(now, old.expiresAt + grace)) {
                return null;
            }
            if (old instanceof Held held && held.owner.equals(owner.value())) {
                renewed[0] = true;
                return new Held(held.owner, now + extension, held.fingerprint);
            }
            return old;
        });
        return renewed[0];
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        ensureOpen();
        boolean[] released = new boolean[1];
        records.asMap().computeIfPresent(cacheKey(key), (k, old) -> {
            if (Nanos.reached(ticker.read(), old.expiresAt + grace)) {
                return null;
            }
            if (old instanceof Held held && held.owner.equals(owner.value())) {
                released[0] = true;
                return null;
            }
            return old;
        });
        return released[0];
    }

    /**
     * Removes the records past expiry + grace and returns how many records past expiry + grace
     * left the store since the last purge, whether this scan removed them or Caffeine's own expiry
     * did. The scan visits every record: O(size).
     */
    @Override
    public long purge() {
        ensureOpen();
        records.cleanUp();
        long removed = 0;
        long now = ticker.read();
        Map<String, MemoryRecord> map = records.asMap();
        for (Map.Entry<String, MemoryRecord> entry : map.entrySet()) {
            if (Nanos.reached(now, entry.getValue().expiresAt + grace)
                    && map.remove(entry.getKey(), entry.getValue())) {
                removed++;
            }
        }
        return removed + expiredByCaffeine.sumThenReset();
    }

    /**
     * The operator's operations: inspect, release and forget cost one map operation; stuck and
     * count visit every record (O(size)). A COMPLETED record shows no owner (the store keeps only a
     * hash of it).
     *
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public InboxAdmin admin() {
        ensureOpen();
        return new CaffeineAdmin(records.asMap(), ticker, grace, this::ensureOpen);
    }

    /**
     * How many live records (within lease or retention) were evicted because the store reached its
     * maximum size. Each let a possible duplicate through; any non-zero value means the maximum
     * size is too small for the throughput and retention.
     */
    public long evictedBeforeExpiry() {
        return evictedLive.get();
    }

    /** How many records the store holds now, including expired ones not yet removed. */
    public long size() {
        ensureOpen();
        return records.estimatedSize();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            records.invalidateAll();
            records.cleanUp();
        }
    }

    @Override
    public String toString() {
        return "CaffeineInboxStore[size=" + records.estimatedSize() + ", grace=" + Duration.ofNanos(grace) + "]";
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the store is closed");
        }
    }

    private void evicted(@Nullable String key, @Nullable MemoryRecord record, RemovalCause cause) {
        if (cause == RemovalCause.EXPIRED) {
            expiredByCaffeine.increment();
        } else if (cause == RemovalCause.SIZE && record != null && !Nanos.reached(ticker.read(), record.expiresAt)) {
            long count = evictedLive.incrementAndGet();
            if (count == 1 || count % 10_000 == 0) {
                LOG.log(
                        Level.WARNING,
                        "CaffeineInboxStore reached its maximum size and evicted {0} live records so"
                                + " far; their duplicates are no longer suppressed. Raise maximumSize above throughput ×"
                                + " retention.",
                        count);
            }
        }
    }

    static String cacheKey(InboxKey key) {
        return key.consumer() + '\0' + key.id();
    }

    /** Each entry lives until its expiry + grace, plus a little slack for a purge to count it. */
    private final class PastGrace implements Expiry<String, MemoryRecord> {
        @Override
        public long expireAfterCreate(String key, MemoryRecord value, long currentTime) {
            return Math.max(0, value.expiresAt + grace + EVICTION_SLACK - currentTime);
        }

        @Override
        public long expireAfterUpdate(String key, MemoryRecord value, long currentTime, long currentDuration) {
            return expireAfterCreate(key, value, currentTime);
        }

        @Override
        public long expireAfterRead(String key, MemoryRecord value, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }

    /** Configures a {@link CaffeineInboxStore}; each setter checks its argument at once. */
    public static final class Builder {

        private long maximumSize = 1_000_000;
        private Duration grace = Duration.ofHours(1);
        private Ticker ticker = Ticker.systemTicker();

        private Builder() {}

        /**
         * The most records the store holds; default 1,000,000. Size it above throughput × retention:
         * evicting a live record lets its duplicates through.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder maximumSize(long maximumSize) {
            requireArgument(maximumSize > 0, "maximumSize must be positive but was " + maximumSize);
            this.maximumSize = maximumSize;
            return this;
        }

        /**
         * How long a record is kept past its expiry, so that a duplicate arriving then is still
         * suppressed and reported late; default 1 hour.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder grace(Duration grace) {
            this.grace = requireNonNegative(grace, "grace");
            return this;
        }

        /**
         * The clock that decides expiry, in nanoseconds; default {@link Ticker#systemTicker()}.
         * Tests may pass a fake one.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = requireNonNull(ticker, "ticker");
            return this;
        }

        /** Builds the store. */
        public CaffeineInboxStore build() {
            return new CaffeineInboxStore(this);
        }
    }
}
