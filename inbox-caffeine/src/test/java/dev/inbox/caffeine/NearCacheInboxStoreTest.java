package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class NearCacheInboxStoreTest {

    /** The decorated store must keep every guarantee of the backing one. */
    @Nested
    class Kit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return NearCacheInboxStore.wrap(
                            CaffeineInboxStore.builder().grace(grace).build())
                    .build();
        }
    }

    /** Counts the claims that reach the backing store. */
    static final class CountingStore implements InboxStore {
        final InboxStore delegate = CaffeineInboxStore.builder().build();
        final AtomicInteger claims = new AtomicInteger();

        @Override
        public ClaimResult claim(ClaimRequest request) {
            claims.incrementAndGet();
            return delegate.claim(request);
        }

        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            return delegate.complete(key, owner, retention);
        }

        @Override
        public boolean release(InboxKey key, OwnerToken owner) {
            return delegate.release(key, owner);
        }

        @Override
        public long purge() {
            return delegate.purge();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private static final InboxKey KEY = InboxKey.of("billing", "event-1");

    @Test
    void repeatDuplicates_areAnsweredWithoutAStoreRoundTrip() {
        CountingStore backing = new CountingStore();
        try (NearCacheInboxStore store = NearCacheInboxStore.wrap(backing).build()) {
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(KEY, owner, Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(KEY, owner, Duration.ofHours(1))).isTrue();
            for (int i = 0; i < 100; i++) {
                assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))))
                        .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
            }
            assertThat(backing.claims).hasValue(1);
            assertThat(store.hits()).isEqualTo(100);
        }
    }

    @Test
    void busyAndAcquired_areNeverCached() {
        CountingStore backing = new CountingStore();
        try (NearCacheInboxStore store = NearCacheInboxStore.wrap(backing).build()) {
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(KEY, owner, Duration.ofMinutes(1)));
            for (int i = 0; i < 5; i++) {
                assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))))
                        .isEqualTo(ClaimResult.busy());
            }
            assertThat(store.release(KEY, owner)).isTrue();
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(backing.claims).hasValue(7);
            assertThat(store.hits()).isZero();
        }
    }

    @Test
    void fingerprints_areComparedWithTheOneTheStoreKept() {
        CountingStore backing = new CountingStore();
        try (NearCacheInboxStore store = NearCacheInboxStore.wrap(backing).build()) {
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(KEY, owner, Duration.ofMinutes(1)).withFingerprint("a"));
            store.complete(KEY, owner, Duration.ofHours(1));
            // complete() does not learn the fingerprint, so the first fingerprinted claim asks the store
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))
                            .withFingerprint("a")))
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH));
            assertThat(store.claimAll(List.of(
                            ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))
                                    .withFingerprint("a"),
                            ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofMinutes(1))
                                    .withFingerprint("b"))))
                    .containsExactly(
                            ClaimResult.duplicate(false, FingerprintCheck.MATCH),
                            ClaimResult.duplicate(false, FingerprintCheck.MISMATCH));
            assertThat(backing.claims).hasValue(2);
        }
    }
}
