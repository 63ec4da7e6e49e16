package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class CaffeineInboxStoreTest {

    @Nested
    class Kit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return CaffeineInboxStore.builder().grace(grace).build();
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return CaffeineSequenceGuard.create();
        }
    }

    /** A ticker the test moves by hand. */
    static final class FakeTicker implements Ticker {
        final AtomicLong nanos = new AtomicLong(1_000_000_000L);

        @Override
        public long read() {
            return nanos.get();
        }

        void advance(Duration d) {
            nanos.addAndGet(d.toNanos());
        }
    }

    private static final InboxKey KEY = InboxKey.of("billing", "event-1");

    @Test
    void claim_isDecidedByTheStoresTicker_notByWallClockSleeps() {
        FakeTicker ticker = new FakeTicker();
        try (CaffeineInboxStore store = CaffeineInboxStore.builder()
                .ticker(ticker)
                .grace(Duration.ofHours(1))
                .build()) {
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(KEY, owner, Duration.ofSeconds(30))))
                    .isEqualTo(ClaimResult.acquired());
            ticker.advance(Duration.ofSeconds(29));
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofSeconds(30))))
                    .isEqualTo(ClaimResult.busy());
            ticker.advance(Duration.ofSeconds(1));
            OwnerToken next = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(KEY, next, Duration.ofSeconds(30))))
                    .isEqualTo(ClaimResult.takenOver());
            assertThat(store.complete(KEY, next, Duration.ofHours(48))).isTrue();

            ticker.advance(Duration.ofHours(48).minusNanos(1));
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofSeconds(30))))
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
            ticker.advance(Duration.ofNanos(1));
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofSeconds(30))))
                    .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED));
            ticker.advance(Duration.ofHours(1));
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofSeconds(30))))
                    .as("past retention + grace the record counts as absent")
                    .isEqualTo(ClaimResult.acquired());
        }
    }

    @Test
    void purge_countsRecordsPastGrace_onceEach() {
        FakeTicker ticker = new FakeTicker();
        try (CaffeineInboxStore store = CaffeineInboxStore.builder()
                .ticker(ticker)
                .grace(Duration.ofMinutes(1))
                .build()) {
            for (int i = 0; i < 10; i++) {
                OwnerToken owner = OwnerToken.random();
                InboxKey key = InboxKey.of("billing", "e" + i);
                store.claim(ClaimRequest.of(key, owner, Duration.ofSeconds(5)));
                store.complete(key, owner, Duration.ofMinutes(i < 6 ? 1 : 10));
            }
            ticker.advance(Duration.ofMinutes(2));
            assertThat(store.purge()).isEqualTo(6);
            assertThat(store.purge()).isZero();
            assertThat(store.size()).isEqualTo(4);
            ticker.advance(Duration.ofHours(1));
            assertThat(store.purge())
                    .as("the rest, some perhaps expired by Caffeine itself")
                    .isEqualTo(4);
            assertThat(store.size()).isZero();
        }
    }

    @Test
    void maximumSize_evictionOfLiveRecordsIsCounted() {
        try (CaffeineInboxStore store =
                CaffeineInboxStore.builder().maximumSize(100).build()) {
            for (int i = 0; i < 1_000; i++) {
                store.claim(ClaimRequest.of(InboxKey.of("c", "k" + i), OwnerToken.random(), Duration.ofMinutes(1)));
            }
            store.purge(); // runs Caffeine's pending maintenance
            assertThat(store.size()).isLessThanOrEqualTo(100);
            assertThat(store.evictedBeforeExpiry()).isGreaterThanOrEqualTo(900);
        }
    }

    @Test
    void builder_rejectsBadSettings() {
        assertThatThrownBy(() -> CaffeineInboxStore.builder().maximumSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maximumSize");
        assertThatThrownBy(() -> CaffeineInboxStore.builder().grace(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grace");
        assertThatThrownBy(() -> CaffeineInboxStore.builder().ticker(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hugeDurations_saturateInsteadOfOverflowing() {
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(KEY, owner, Duration.ofDays(365L * 10_000))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(KEY, owner, Duration.ofSeconds(Long.MAX_VALUE)))
                    .isTrue();
            assertThat(store.claim(ClaimRequest.of(KEY, OwnerToken.random(), Duration.ofSeconds(1))))
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        }
    }
}
