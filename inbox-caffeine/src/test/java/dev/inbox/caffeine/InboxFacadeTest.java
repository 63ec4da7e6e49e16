package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@link Inbox} facade on the embedded store. */
class InboxFacadeTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Inbox inbox = Inbox.builder(store)
            .consumer("billing")
            .retention(Duration.ofHours(1))
            .lease(Duration.ofSeconds(30))
            .metrics(MicrometerInboxMetrics.of(registry))
            .build();

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void withLease_claimsForTheShorterLease_andSharesTheRestOfTheInbox() throws Exception {
        Inbox shortLived = inbox.withLease(Duration.ofMillis(300));
        assertThat(shortLived.lease()).isEqualTo(Duration.ofMillis(300));
        assertThat(shortLived.consumer()).isEqualTo("billing");
        assertThat(shortLived.retention()).isEqualTo(Duration.ofHours(1));
        assertThat(inbox.lease()).as("the original keeps its lease").isEqualTo(Duration.ofSeconds(30));

        // A claim of the short inbox, never completed (its holder died), ends after 300 ms ...
        assertThat(shortLived.claims().claimAll(List.of("stuck")).get(0).isAcquired())
                .isTrue();
        assertThat(inbox.claims().claimAll(List.of("stuck")).get(0).status()).hasToString("BUSY");
        Thread.sleep(400);
        assertThat(inbox.claims().claimAll(List.of("stuck")).get(0).isAcquired())
                .isTrue();
        // ... while one of the original holds for 30 s.
        inbox.claims().claimAll(List.of("held"));
        Thread.sleep(400);
        assertThat(shortLived.claims().claimAll(List.of("held")).get(0).status())
                .hasToString("BUSY");

        assertThatThrownBy(() -> inbox.withLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox.withLease(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void handle_runsWorkOnce_andSuppressesRedeliveries() {
        AtomicInteger applied = new AtomicInteger();
        assertThat(inbox.handle("e1", applied::incrementAndGet).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        for (int i = 0; i < 5; i++) {
            HandleResult again = inbox.handle("e1", applied::incrementAndGet);
            assertThat(again.outcome()).isEqualTo(HandleOutcome.DUPLICATE);
            assertThat(again.shouldAcknowledge()).isTrue();
        }
        assertThat(applied).hasValue(1);
        assertThat(registry.get("inbox.claims")
                        .tag("outcome", "acquired")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("inbox.claims")
                        .tag("outcome", "duplicate")
                        .counter()
                        .count())
                .isEqualTo(5);
        assertThat(registry.get("inbox.claim.latency").timer().count()).isEqualTo(6);
    }

    @Test
    void handle_concurrentDeliveries_runWorkOnce_othersAreBusyOrDuplicate() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                String id = "storm-" + round;
                AtomicInteger applied = new AtomicInteger();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<HandleResult>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return inbox.handle(id, applied::incrementAndGet);
                    }));
                }
                start.countDown();
                int processed = 0;
                for (Future<HandleResult> result : results) {
                    if (result.get(10, TimeUnit.SECONDS).outcome() == HandleOutcome.PROCESSED) {
                        processed++;
                    }
                }
                assertThat(processed).as("round %d", round).isEqualTo(1);
                assertThat(applied).as("round %d", round).hasValue(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void handle_whenWorkThrows_releasesTheClaim_andRethrowsTheSameException() {
        IOException failure = new IOException("downstream refused");
        assertThatThrownBy(() -> inbox.handle("e2", () -> {
                    throw failure;
                }))
                .isSameAs(failure);
        AtomicInteger applied = new AtomicInteger();
        assertThat(inbox.handle("e2", applied::incrementAndGet).outcome())
                .as("the redelivery is processed at once, not BUSY until the lease ends")
                .isEqualTo(HandleOutcome.PROCESSED);
        assertThat(applied).hasValue(1);
    }

    @Test
    void handle_whenWorkThrowsAnError_rethrowsThatSameError() {
        AssertionError failure = new AssertionError("an Error, not an Exception");
        assertThatThrownBy(() -> inbox.handle("e2-error", () -> {
                    throw failure;
                }))
                .isSameAs(failure);
    }

    @Test
    void claimAll_answersEachIdInOrder_andEachAcquiredClaimCompletesOrReleases() {
        inbox.handle("done", () -> {});
        List<dev.inbox.Claim> claims = inbox.claims().claimAll(List.of("new-1", "done", "new-2", "new-1"));
        assertThat(claims).extracting(dev.inbox.Claim::id).containsExactly("new-1", "done", "new-2", "new-1");
        assertThat(claims)
                .extracting(dev.inbox.Claim::status)
                .containsExactly(
                        dev.inbox.spi.ClaimStatus.ACQUIRED,
                        dev.inbox.spi.ClaimStatus.DUPLICATE,
                        dev.inbox.spi.ClaimStatus.ACQUIRED,
                        dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(claims.get(0).complete()).isTrue();
        assertThat(claims.get(2).release()).isTrue();
        assertThat(inbox.handle("new-1", () -> {}).outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(inbox.handle("new-2", () -> {}).outcome())
                .as("released: the next delivery applies it")
                .isEqualTo(HandleOutcome.PROCESSED);
        assertThatThrownBy(() -> claims.get(1).complete())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("DUPLICATE");
        assertThat(inbox.claims().claimAll(List.of())).isEmpty();
        assertThatThrownBy(() -> inbox.claims().claimAll(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox.claims().claimAll(java.util.Arrays.asList("a", null)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void handle_whileAnotherDeliveryIsInFlight_isBusy_andMustNotBeAcknowledged() throws Exception {
        CountDownLatch inWork = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<HandleResult> first = pool.submit(() -> inbox.handle("e3", () -> {
                inWork.countDown();
                finish.await();
            }));
            assertThat(inWork.await(10, TimeUnit.SECONDS)).isTrue();
            HandleResult second = inbox.handle("e3", () -> {
                throw new AssertionError("must not run");
            });
            assertThat(second.outcome()).isEqualTo(HandleOutcome.BUSY);
            assertThat(second.shouldAcknowledge()).isFalse();
            finish.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void handle_reportsFingerprintMismatch_asResultFlagAndMetric() {
        inbox.handle("e4", "sha256:one", () -> {});
        HandleResult same = inbox.handle("e4", "sha256:one", () -> {});
        HandleResult other = inbox.handle("e4", "sha256:two", () -> {});
        assertThat(same.isFingerprintMismatch()).isFalse();
        assertThat(other.outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(other.isFingerprintMismatch()).isTrue();
        assertThat(registry.get("inbox.fingerprint.mismatch").counter().count()).isEqualTo(1);
    }

    @Test
    void handle_reportsLateDuplicates() throws Exception {
        try (CaffeineInboxStore shortLived =
                CaffeineInboxStore.builder().grace(Duration.ofHours(1)).build()) {
            Inbox quick = Inbox.builder(shortLived)
                    .consumer("billing")
                    .retention(Duration.ofMillis(50))
                    .metrics(MicrometerInboxMetrics.of(registry))
                    .build();
            quick.handle("e5", () -> {});
            Thread.sleep(120);
            HandleResult late = quick.handle("e5", () -> {});
            assertThat(late.isLateDuplicate()).isTrue();
            assertThat(registry.get("inbox.late.duplicate.detected").counter().count())
                    .isEqualTo(1);
        }
    }

    @Test
    void handle_whenWorkOutlivesItsLease_reportsLeaseLost() throws Exception {
        Inbox shortLease = Inbox.builder(store)
                .consumer("billing")
                .lease(Duration.ofMillis(50))
                .metrics(MicrometerInboxMetrics.of(registry))
                .build();
        HandleResult result = shortLease.handle("e6", () -> {
            Thread.sleep(100);
            // another delivery takes the expired lease over while this work still runs
            assertThat(store.claim(
                            ClaimRequest.of(InboxKey.of("billing", "e6"), OwnerToken.random(), Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.takenOver());
        });
        assertThat(result.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(result.leaseLost()).isTrue();
        assertThat(registry.get("inbox.lease.lost").counter().count()).isEqualTo(1);
        assertThat(registry.get("inbox.lease.takeovers").counter().count()).isZero();
    }

    @Test
    void handle_retriesAClaimWhoseReplyWasLost_withTheSameOwner() {
        FlakyStore flaky = new FlakyStore(store);
        Inbox retrying = Inbox.builder(flaky)
                .consumer("billing")
                .metrics(MicrometerInboxMetrics.of(registry))
                .build();
        flaky.loseNextClaimReply = true;
        AtomicInteger applied = new AtomicInteger();
        assertThat(retrying.handle("e7", applied::incrementAndGet).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(applied).hasValue(1);
        assertThat(flaky.owners.get("e7")).as("both attempts used one owner").hasSize(1);
        assertThat(registry.get("inbox.store.errors")
                        .tag("operation", "claim")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void handle_storeFailure_propagatesAndRunsNoWork() {
        FlakyStore flaky = new FlakyStore(store);
        Inbox once = Inbox.builder(flaky).consumer("billing").claimAttempts(1).build();
        flaky.loseNextClaimReply = true;
        assertThatThrownBy(() -> once.handle("e8", () -> {
                    throw new AssertionError("must not run");
                }))
                .isInstanceOf(InboxStoreException.class);
    }

    @Test
    void badInput_isRejectedBeforeTheStoreIsAsked() {
        FlakyStore flaky = new FlakyStore(store);
        Inbox checked = Inbox.builder(flaky).consumer("billing").build();
        assertThatThrownBy(() -> checked.handle("", () -> {})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> checked.handle("x".repeat(513), () -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> checked.handle("e9", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> checked.handle("e9", "bad fingerprint", () -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(flaky.calls).hasValue(0);
    }

    @Test
    void builder_validatesEachSetting() {
        assertThatThrownBy(() -> Inbox.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Inbox.builder(store).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("consumer");
        assertThatThrownBy(() -> Inbox.builder(store).retention(Duration.ZERO)).hasMessageContaining("retention");
        assertThatThrownBy(() -> Inbox.builder(store).lease(Duration.ofSeconds(-1)))
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> Inbox.builder(store).claimAttempts(0)).hasMessageContaining("claimAttempts");
        assertThatThrownBy(() -> Inbox.builder(store).consumer("")).hasMessageContaining("consumer");
    }

    @Test
    void purge_countsRemovedRecords() throws Exception {
        try (CaffeineInboxStore shortLived =
                CaffeineInboxStore.builder().grace(Duration.ofMillis(10)).build()) {
            Inbox quick = Inbox.builder(shortLived)
                    .consumer("billing")
                    .retention(Duration.ofMillis(20))
                    .metrics(MicrometerInboxMetrics.of(registry))
                    .build();
            quick.handle("p1", () -> {});
            quick.handle("p2", () -> {});
            Thread.sleep(60);
            assertThat(quick.purge()).isEqualTo(2);
            assertThat(registry.get("inbox.purge.removed").counter().count()).isEqualTo(2);
        }
    }

    /** Applies claims but can lose the reply of the next one, as a timeout after the server applied it would. */
    static final class FlakyStore implements InboxStore {
        final InboxStore delegate;
        final AtomicInteger calls = new AtomicInteger();
        final ConcurrentHashMap<String, java.util.Set<OwnerToken>> owners = new ConcurrentHashMap<>();
        volatile boolean loseNextClaimReply;

        FlakyStore(InboxStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public ClaimResult claim(ClaimRequest request) {
            calls.incrementAndGet();
            owners.computeIfAbsent(request.key().id(), k -> ConcurrentHashMap.newKeySet())
                    .add(request.owner());
            ClaimResult result = delegate.claim(request);
            if (loseNextClaimReply) {
                loseNextClaimReply = false;
                throw new InboxStoreException("reply lost after the claim was applied", null);
            }
            return result;
        }

        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            calls.incrementAndGet();
            return delegate.complete(key, owner, retention);
        }

        @Override
        public boolean release(InboxKey key, OwnerToken owner) {
            calls.incrementAndGet();
            return delegate.release(key, owner);
        }

        @Override
        public long purge() {
            return delegate.purge();
        }

        @Override
        public void close() {}
    }
}
