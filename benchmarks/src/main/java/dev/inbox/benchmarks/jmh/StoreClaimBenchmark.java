package dev.inbox.benchmarks.jmh;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The store side of every claim benchmark — the same calls on each store — so that each subclass
 * only adds its raw driver's baselines ({@code <operation>_raw}) and its set-up. JMH runs these
 * methods once per concrete subclass, under the subclass's name.
 *
 * <ul>
 *   <li>{@code claim_store}: a lease claim of a fresh key.
 *   <li>{@code duplicate_store}: a claim of a COMPLETED key.
 *   <li>{@code contended_store}: every thread claims one hot key, as a redelivery storm of one event
 *       does (meaningful with {@code -t 4}).
 *   <li>{@code claimComplete_store}: claim + complete, lease mode's two round trips.
 *   <li>{@code claimAll100_store}: 100 fresh keys in one {@code claimAll}; ops/s × 100 = keys/s.
 * </ul>
 */
@State(Scope.Benchmark)
public abstract class StoreClaimBenchmark {

    static final Duration LEASE = Duration.ofMinutes(5);
    static final Duration RETENTION = Duration.ofHours(1);
    static final String DUPLICATE_ID = "already-done";
    static final String HOT_ID = "hot";

    InboxStore store;
    String consumer;
    final AtomicLong sequence = new AtomicLong();

    /** Called by the subclass's set-up: a consumer of this run and one COMPLETED key for duplicates. */
    void prepare(InboxStore store) {
        this.store = store;
        this.consumer = "bench-" + UUID.randomUUID();
        OwnerToken owner = OwnerToken.random();
        store.claim(ClaimRequest.of(InboxKey.of(consumer, DUPLICATE_ID), owner, LEASE));
        store.complete(InboxKey.of(consumer, DUPLICATE_ID), owner, RETENTION);
    }

    String freshId() {
        return "k-" + sequence.incrementAndGet();
    }

    @Benchmark
    public ClaimResult claim_store() {
        return store.claim(ClaimRequest.of(InboxKey.of(consumer, freshId()), OwnerToken.random(), LEASE));
    }

    @Benchmark
    public ClaimResult duplicate_store() {
        return store.claim(ClaimRequest.of(InboxKey.of(consumer, DUPLICATE_ID), OwnerToken.random(), LEASE));
    }

    @Benchmark
    public ClaimResult contended_store() {
        return store.claim(ClaimRequest.of(InboxKey.of(consumer, HOT_ID), OwnerToken.random(), LEASE));
    }

    @Benchmark
    public boolean claimComplete_store() {
        InboxKey key = InboxKey.of(consumer, freshId());
        OwnerToken owner = OwnerToken.random();
        store.claim(ClaimRequest.of(key, owner, LEASE));
        return store.complete(key, owner, RETENTION);
    }

    @Benchmark
    public List<ClaimResult> claimAll100_store() {
        OwnerToken owner = OwnerToken.random();
        List<ClaimRequest> batch = new ArrayList<>(100);
        for (int i = 0; i < 100; i++) {
            batch.add(ClaimRequest.of(InboxKey.of(consumer, freshId()), owner, LEASE));
        }
        return store.claimAll(batch);
    }
}
