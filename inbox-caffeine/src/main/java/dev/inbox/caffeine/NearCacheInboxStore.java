package dev.inbox.caffeine;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNoNulls;
import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Wraps any {@link InboxStore} and answers repeat duplicates from memory: during a redelivery
 * storm, most claims hit keys already COMPLETED, and each such hit costs the backing store a round
 * trip that changes nothing.
 *
 * <p>Only COMPLETED keys are remembered, learned from a successful {@link #complete} or from a
 * DUPLICATE the backing store returned, and only those without a stored result (the backing store
 * answers the others, with their result). A claim is never answered ACQUIRED or BUSY from memory and
 * absence is never cached: every claim that could take a key goes to the backing store, so the
 * decorated store keeps every guarantee of the backing one.
 *
 * <p>A key is remembered for at most {@link Builder#maxTtl(Duration)}, and after a {@code
 * complete} for at most its retention. Two consequences, both on the safe side: a duplicate that
 * arrives within {@code maxTtl} after the retention ended is still suppressed (flagged late when
 * the backing store reported the record's expiry, as every store of this project does), and a
 * record purged early from the backing store by hand is still suppressed until the entry ages out.
 * Answers from memory carry {@link ClaimResult#pastRetention()} by the local clock, from the
 * expiry the backing store reported.
 */
public final class NearCacheInboxStore implements InboxStore {

    private final InboxStore delegate;
    private final Cache<InboxKey, Known> known;
    private final long maxTtl;
    private final LongAdder hits = new LongAdder();
    private final AtomicBoolean closed = new AtomicBoolean();

    private NearCacheInboxStore(Builder builder) {
        this.delegate = builder.delegate;
        this.maxTtl = Nanos.of(builder.maxTtl);
        this.known = Caffeine.newBuilder()
                .maximumSize(builder.maximumSize)
                .expireAfter(Expiry.creating((InboxKey k, Known v) -> Duration.ofNanos(v.ttl)))
                .build();
    }

    /**
     * Starts configuring a near-cache in front of {@code delegate}.
     *
     * @throws IllegalArgumentException if {@code delegate} is null
     */
    public static Builder wrap(InboxStore delegate) {
        return new Builder(requireNonNull(delegate, "delegate"));
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        ensureOpen();
        ClaimResult cached = fromMemory(request);
        if (cached != null) {
            return cached;
        }
        ClaimResult result = delegate.claim(request);
        learn(request, result);
        return result;
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        List<ClaimRequest> batch = requireNoNulls(requests, "requests");
        ensureOpen();
        ClaimResult[] results = new ClaimResult[batch.size()];
        List<ClaimRequest> forwarded = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            ClaimResult cached = fromMemory(batch.get(i));
            if (cached != null) {
                results[i] = cached;
            } else {
                forwarded.add(batch.get(i));
                positions.add(i);
            }
        }
        if (!forwarded.isEmpty()) {
            List<ClaimResult> answered = delegate.claimAll(forwarded);
            Set<InboxKey> seen = new HashSet<>();
            for (int j = 0; j < answered.size(); j++) {
                results[positions.get(j)] = answered.get(j);
                // A repeat inside the batch is DUPLICATE of its first occurrence, not of a
                // COMPLETED record: only first occurrences say something about the store.
                if (seen.add(forwarded.get(j).key())) {
                    learn(forwarded.get(j), answered.get(j));
                }
            }
        }
        return Arrays.asList(results);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long keep = Nanos.of(requirePositive(retention, "retention"));
        ensureOpen();
        boolean completed = delegate.complete(key, owner, retention);
        if (completed) {
            known.put(key, new Known(null, Math.min(keep, maxTtl), System.nanoTime() + keep, true));
        }
        return completed;
    }

    /**
     * Completes in the backing store and forgets the key here: a duplicate must be answered with
     * the stored result, which only the backing store keeps, so keys with a result are never
     * answered from memory.
     */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        ensureOpen();
        boolean completed = delegate.complete(key, owner, retention, result);
        known.invalidate(key);
        return completed;
    }

    /** The backing store's. */
    @Override
    public int maxResultBytes() {
        return delegate.maxResultBytes();
    }

    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        long keep = Nanos.of(requirePositive(retention, "retention"));
        ensureOpen();
        List<Boolean> completed = delegate.completeAll(held, retention);
        for (int i = 0; i < completed.size(); i++) {
            if (completed.get(i)) {
                known.put(held.get(i).key(), new Known(null, Math.min(keep, maxTtl), System.nanoTime() + keep, true));
            }
        }
        return completed;
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        ensureOpen();
        return delegate.renew(key, owner, lease);
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        ensureOpen();
        return delegate.release(key, owner);
    }

    @Override
    public long purge() {
        ensureOpen();
        return delegate.purge();
    }

    /**
     * The backing store's admin operations, each as costly as there; {@code forget} also drops the
     * key from this instance's memory, so its next delivery here reaches the backing store. Other
     * instances' near-caches may still answer it DUPLICATE from memory for up to their {@code
     * maxTtl}: forget a key meant for replay before redelivering it, and expect that delay.
     *
     * @throws IllegalStateException if the store is closed
     * @throws UnsupportedOperationException if the backing store offers no admin operations
     */
    @Override
    public InboxAdmin admin() {
        ensureOpen();
        InboxAdmin backing = delegate.admin();
        return new InboxAdmin() {
            @Override
            public Optional<RecordView> inspect(InboxKey key) {
                ensureOpen();
                return backing.inspect(key);
            }

            @Override
            public List<RecordView> stuck(StuckQuery query) {
                ensureOpen();
                return backing.stuck(query);
            }

            @Override
            public RecordCounts count(String consumer) {
                ensureOpen();
                return backing.count(consumer);
            }

            @Override
            public boolean releaseLease(InboxKey key) {
                ensureOpen();
                return backing.releaseLease(key);
            }

            @Override
            public boolean forget(InboxKey key) {
                requireNonNull(key, "key");
                ensureOpen();
                boolean forgot = backing.forget(key);
                known.invalidate(key); // after: a claim racing the forget may have learned the old record
                return forgot;
            }
        };
    }

    /** How many claims were answered from memory. */
    public long hits() {
        return hits.sum();
    }

    /** Closes the backing store too. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            known.invalidateAll();
            delegate.close();
        }
    }

    @Override
    public String toString() {
        return "NearCacheInboxStore[" + delegate + "]";
    }

    private @Nullable ClaimResult fromMemory(ClaimRequest request) {
        Known entry = known.getIfPresent(request.key());
        // Without the stored fingerprint the comparison a caller asked for cannot be made here.
        if (entry == null || (request.fingerprint() != null && entry.fingerprint == null)) {
            return null;
        }
        hits.increment();
        FingerprintCheck check = FingerprintCheck.compare(entry.fingerprint, request.fingerprint());
        if (!entry.knowsExpiry) {
            return ClaimResult.duplicate(false, check);
        }
        long past = System.nanoTime() - entry.expiresAt;
        return ClaimResult.duplicate(past >= 0, check).withPastRetention(Duration.ofNanos(past));
    }

    private void learn(ClaimRequest request, ClaimResult result) {
        if (result.status() != ClaimStatus.DUPLICATE || result.isLate() || result.hasStoredResult()) {
            return;
        }
        Duration past = result.pastRetention();
        long expiresAt = past == null ? 0 : System.nanoTime() - Nanos.of(past);
        switch (result.fingerprint()) {
            case MATCH -> known.put(request.key(), new Known(request.fingerprint(), maxTtl, expiresAt, past != null));
            case NOT_COMPARED ->
                known.asMap().putIfAbsent(request.key(), new Known(null, maxTtl, expiresAt, past != null));
            case MISMATCH -> {} // the stored fingerprint is unknown here: keep asking the store
        }
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the store is closed");
        }
    }

    /** A key known to be COMPLETED, with the fingerprint its record keeps when known. */
    /**
     * A key known to be COMPLETED, with the fingerprint its record keeps when known, and when its
     * retention ends (by {@link System#nanoTime()}) when {@code knowsExpiry}.
     */
    private record Known(@Nullable String fingerprint, long ttl, long expiresAt, boolean knowsExpiry) {}

    /** Configures a {@link NearCacheInboxStore}; each setter checks its argument at once. */
    public static final class Builder {

        private final InboxStore delegate;
        private long maximumSize = 100_000;
        private Duration maxTtl = Duration.ofMinutes(5);

        private Builder(InboxStore delegate) {
            this.delegate = delegate;
        }

        /**
         * How many completed keys to remember; default 100,000.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder maximumSize(long maximumSize) {
            requireArgument(maximumSize > 0, "maximumSize must be positive but was " + maximumSize);
            this.maximumSize = maximumSize;
            return this;
        }

        /**
         * The longest a key is remembered; default 5 minutes. Keep it well below the retention.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder maxTtl(Duration maxTtl) {
            this.maxTtl = requirePositive(maxTtl, "maxTtl");
            return this;
        }

        /** Builds the decorator. */
        public NearCacheInboxStore build() {
            return new NearCacheInboxStore(this);
        }
    }
}
