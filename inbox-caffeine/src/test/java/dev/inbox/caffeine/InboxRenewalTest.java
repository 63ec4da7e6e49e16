package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.Lease;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease renewal ({@link Inbox#handleRenewing}) on the embedded store, in real time: work that runs
 * three leases long keeps its event, and work whose renewals stalled past the lease learns that it
 * lost it.
 */
class InboxRenewalTest {

    private static final Duration LEASE = Duration.ofMillis(300);

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void close() {
        scheduler.shutdownNow();
        store.close();
    }

    private Inbox.Builder inbox() {
        return Inbox.builder(store).consumer("reports").lease(LEASE).metrics(MicrometerInboxMetrics.of(registry));
    }

    @Test
    void workLongerThanTheLease_keepsItsEvent_whileItsClaimIsRenewed() throws Exception {
        Inbox inbox = inbox().build();
        List<ClaimStatus> others = new ArrayList<>();
        List<Boolean> held = new ArrayList<>();
        HandleResult result = inbox.handleRenewing("r1", lease -> {
            for (int i = 0; i < 6; i++) { // 900 ms: three leases
                Thread.sleep(150);
                held.add(lease.isHeld());
                Claim other = inbox.claims().claim("r1");
                others.add(other.status());
            }
        });
        assertThat(result.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(result.leaseLost()).isFalse();
        assertThat(others).as("other deliveries while the work ran").containsOnly(ClaimStatus.BUSY);
        assertThat(held).containsOnly(true);
        assertThat(inbox.claims().claim("r1").status()).isEqualTo(ClaimStatus.DUPLICATE);
        assertThat(registry.get("inbox.lease.renewal.failed").counter().count()).isZero();
    }

    @Test
    void withoutRenewal_theSameWorkLosesItsEvent() throws Exception {
        Inbox inbox = inbox().build();
        List<ClaimStatus> others = new ArrayList<>();
        HandleResult result = inbox.handle("r1", () -> {
            Thread.sleep(450);
            others.add(inbox.claims().claim("r1").status());
        });
        assertThat(others)
                .as("the lease ended and another delivery took the event")
                .containsExactly(ClaimStatus.ACQUIRED);
        assertThat(result.leaseLost()).isTrue();
    }

    @Test
    void renewalsThatStallPastTheLease_areRefused_andTheWorkSeesItLostTheEvent() throws Exception {
        CountDownLatch stall = new CountDownLatch(1);
        scheduler.execute(() -> {
            try {
                stall.await(10, TimeUnit.SECONDS); // the only renewal thread is busy: no renewal runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Inbox inbox = inbox().renewals(scheduler).build();
        List<Boolean> heldAfterTakeover = new ArrayList<>();
        HandleResult result = inbox.handleRenewing("r1", lease -> {
            Thread.sleep(450);
            assertThat(lease.isHeld()).as("a whole lease without a renewal").isFalse();
            assertThat(inbox.claims().claim("r1").status())
                    .as("another delivery takes the event over")
                    .isEqualTo(ClaimStatus.ACQUIRED);
            stall.countDown(); // the renewals resume, and the store refuses them
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!lease.isLost() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            heldAfterTakeover.add(lease.isHeld());
        });
        assertThat(heldAfterTakeover).containsExactly(false);
        assertThat(result.leaseLost()).isTrue();
        assertThat(registry.get("inbox.lease.renewal.failed").counter().count()).isEqualTo(1);
    }

    /**
     * One renewal that hangs in the store (a slow server, a call without a timeout) must not stall the
     * renewals of every other claim in the process: on one shared thread, the other claim's lease ran
     * out behind it and another delivery took its event.
     */
    @Test
    void aRenewalThatHangsInTheStore_doesNotStallTheRenewalsOfOtherClaims() throws Exception {
        CountDownLatch hanging = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        Inbox inbox = Inbox.builder(renewingThrough(key -> {
                    if (key.id().equals("slow")) {
                        hanging.countDown();
                        letGo.await(10, TimeUnit.SECONDS);
                    }
                }))
                .consumer("reports")
                .lease(LEASE)
                .build(); // the shared renewals
        Claim slow = inbox.claims().claim("slow");
        Claim fast = inbox.claims().claim("fast");
        slow.keepRenewed();
        Lease lease = fast.keepRenewed();
        try {
            assertThat(hanging.await(5, TimeUnit.SECONDS))
                    .as("a renewal of slow hangs")
                    .isTrue();
            Thread.sleep(LEASE.multipliedBy(3).toMillis()); // three of fast's leases while it hangs
            assertThat(inbox.claims().claim("fast").status())
                    .as("another delivery of fast while slow's renewal hangs")
                    .isEqualTo(ClaimStatus.BUSY);
            assertThat(lease.isHeld()).isTrue();
        } finally {
            letGo.countDown();
        }
        assertThat(fast.complete()).isTrue();
        slow.release();
    }

    /** A renewal whose store call throws what no store should (a bug): the next tick renews all the same. */
    @Test
    void aRenewalThatThrowsAnUnexpectedException_isTriedAgainAtTheNextTick() throws Exception {
        AtomicInteger thrown = new AtomicInteger();
        Inbox inbox = inbox().build();
        Inbox throwingOnce = Inbox.builder(renewingThrough(key -> {
                    if (thrown.getAndIncrement() == 0) {
                        throw new IllegalStateException("test: a store's bug");
                    }
                }))
                .consumer("reports")
                .lease(LEASE)
                .build();
        Claim claim = throwingOnce.claims().claim("r1");
        Lease lease = claim.keepRenewed();
        Thread.sleep(LEASE.multipliedBy(3).toMillis());
        assertThat(thrown).as("renewals tried").hasValueGreaterThan(2);
        assertThat(inbox.claims().claim("r1").status()).as("another delivery").isEqualTo(ClaimStatus.BUSY);
        assertThat(lease.isHeld()).isTrue();
        assertThat(claim.complete()).isTrue();
    }

    /**
     * Work that holds its event past {@code maxInHand} (a handler that never returns) stops being
     * renewed, is counted, and another delivery takes the event over once the lease ends.
     */
    @Test
    void workHeldPastMaxInHand_isNoLongerRenewed_andTheEventIsTakenOverAfterItsLease() throws Exception {
        Inbox inbox = inbox().maxInHand(Duration.ofMillis(600)).build();
        Claim hung = inbox.claims().claim("hung");
        Lease lease = hung.keepRenewed();
        Thread.sleep(450);
        assertThat(inbox.claims().claim("hung").status()).as("within maxInHand").isEqualTo(ClaimStatus.BUSY);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        ClaimStatus other = ClaimStatus.BUSY;
        while (other == ClaimStatus.BUSY && System.nanoTime() < deadline) {
            Thread.sleep(50);
            other = inbox.claims().claim("hung").status();
        }
        assertThat(other).as("another delivery after maxInHand and the lease").isEqualTo(ClaimStatus.ACQUIRED);
        assertThat(lease.isHeld()).isFalse();
        assertThat(registry.get("inbox.lease.abandoned").counter().count()).isEqualTo(1);
        assertThatThrownBy(() -> inbox().maxInHand(LEASE).build())
                .as("maxInHand not longer than the lease")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox().maxInHand(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Inbox.builder(store)
                        .consumer("long")
                        .lease(Duration.ofHours(2))
                        .build()
                        .maxInHand())
                .as("the default for a lease of two hours: ten leases")
                .isEqualTo(Duration.ofHours(20));
        assertThat(inbox().build().maxInHand()).as("the default").isEqualTo(Duration.ofHours(1));
    }

    /**
     * The scheduler's queue length as soon as it is {@code expected}, or after 5 s. A task of
     * {@code scheduleWithFixedDelay} leaves the queue while it runs, so one look can miss it.
     */
    private int queuedSoon(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (scheduler.getQueue().size() != expected && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return scheduler.getQueue().size();
    }

    /** What a renewal does before it reaches the store. */
    @FunctionalInterface
    private interface BeforeRenewal {
        void accept(InboxKey key) throws Exception;
    }

    /** This test's store, with {@code before} run ahead of every renewal. */
    private InboxStore renewingThrough(BeforeRenewal before) {
        return (InboxStore) Proxy.newProxyInstance(
                InboxStore.class.getClassLoader(), new Class<?>[] {InboxStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("renew")) {
                        before.accept((InboxKey) args[0]);
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void failingWork_releasesItsClaim_andItsRenewalsStop() throws Exception {
        Inbox inbox =
                inbox().renewals(scheduler).renewEvery(Duration.ofMillis(20)).build();
        assertThatThrownBy(() -> inbox.handleRenewing("r1", lease -> {
                    Thread.sleep(100);
                    throw new IllegalStateException("failed");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(inbox.claims().claim("r1").status()).as("released").isEqualTo(ClaimStatus.ACQUIRED);
        Thread.sleep(100);
        assertThat(scheduler.getQueue()).as("no renewal left scheduled").isEmpty();
    }

    @Test
    void keepRenewed_holdsEveryClaimOfABatch_untilEachIsCompletedOrReleased() throws Exception {
        Inbox inbox =
                inbox().renewals(scheduler).renewEvery(Duration.ofMillis(100)).build();
        List<Claim> batch = inbox.claims().claimAll(List.of("b1", "b2", "b3"));
        List<dev.inbox.Lease> leases = new ArrayList<>();
        batch.forEach(claim -> leases.add(claim.keepRenewed()));
        assertThat(batch.get(0).keepRenewed()).as("asked again: the same lease").isSameAs(leases.get(0));
        Thread.sleep(900); // three leases: the last claim of a poll whose work starts late
        for (String id : List.of("b1", "b2", "b3")) {
            assertThat(inbox.claims().claim(id).status())
                    .as("another delivery of %s", id)
                    .isEqualTo(ClaimStatus.BUSY);
        }
        assertThat(leases).allMatch(dev.inbox.Lease::isHeld);
        assertThat(batch.get(0).complete()).isTrue();
        assertThat(batch.get(1).release()).isTrue();
        assertThat(batch.get(2).complete()).isTrue();
        Thread.sleep(200);
        assertThat(scheduler.getQueue()).as("no renewal left scheduled").isEmpty();
        assertThat(inbox.claims().claim("b2").status()).as("released").isEqualTo(ClaimStatus.ACQUIRED);
        assertThatThrownBy(() -> batch.get(0).keepRenewed())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("completed or released");
        assertThatThrownBy(() -> inbox.claims().claim("b1").keepRenewed())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("DUPLICATE");
        assertThat(registry.get("inbox.lease.renewal.failed").counter().count()).isZero();
    }

    @Test
    void keepRenewedTogether_holdsEveryClaimOfAPoll_withOneTask_untilTheLastEnds() throws Exception {
        Inbox inbox =
                inbox().renewals(scheduler).renewEvery(Duration.ofMillis(100)).build();
        Claim elsewhere = inbox.claims().claim("g-busy"); // another delivery holds this one
        List<Claim> poll = inbox.claims().claimAll(List.of("g1", "g2", "g-busy", "g3"));
        inbox.claims().keepRenewed(poll);

        assertThat(queuedSoon(1)).as("one task for the poll").isEqualTo(1);
        List<Lease> leases = new ArrayList<>();
        for (Claim claim : List.of(poll.get(0), poll.get(1), poll.get(3))) {
            leases.add(claim.keepRenewed()); // each claim's lease, from the group
        }
        assertThat(queuedSoon(1))
                .as("asking for a lease schedules nothing more")
                .isEqualTo(1);
        Thread.sleep(900); // three leases: the last records of a poll whose work starts late
        for (String id : List.of("g1", "g2", "g3")) {
            assertThat(inbox.claims().claim(id).status())
                    .as("another delivery of %s", id)
                    .isEqualTo(ClaimStatus.BUSY);
        }
        assertThat(leases).allMatch(Lease::isHeld);

        assertThat(poll.get(0).complete()).isTrue();
        assertThat(poll.get(1).release()).isTrue();
        Thread.sleep(600); // two leases after the others ended: the last one still held
        assertThat(inbox.claims().claim("g3").status()).isEqualTo(ClaimStatus.BUSY);
        assertThat(inbox.claims().claim("g2").status()).as("released").isEqualTo(ClaimStatus.ACQUIRED);
        assertThat(queuedSoon(1))
                .as("the task goes on for the last claim (out of the queue only while it runs)")
                .isEqualTo(1);

        assertThat(inbox.claims().completeAll(List.of(poll.get(3)))).containsExactly(true);
        Thread.sleep(200);
        assertThat(scheduler.getQueue()).as("no renewal left scheduled").isEmpty();
        assertThat(elsewhere.complete()).isTrue();
        assertThat(registry.get("inbox.lease.renewal.failed").counter().count()).isZero();
        assertThatThrownBy(() -> inbox.claims()
                        .keepRenewed(List.of(inbox.withLease(LEASE).claims().claim("x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("another inbox");
    }

    @Test
    void keepRenewed_endsWhenTheClaimsAreCompletedTogether_withCompleteAll() throws Exception {
        Inbox inbox =
                inbox().renewals(scheduler).renewEvery(Duration.ofMillis(100)).build();
        List<Claim> batch = inbox.claims().claimAll(List.of("c1", "c2"));
        List<dev.inbox.Lease> leases = new ArrayList<>();
        batch.forEach(claim -> leases.add(claim.keepRenewed()));
        Thread.sleep(400); // past the first lease: held by the renewals
        assertThat(inbox.claims().completeAll(batch)).containsExactly(true, true);
        Thread.sleep(300); // three renewal periods after the completion
        assertThat(scheduler.getQueue()).as("no renewal left scheduled").isEmpty();
        assertThat(registry.get("inbox.lease.renewal.failed").counter().count())
                .as("a renewal of a completed claim is refused and counted as a failure")
                .isZero();
        assertThatThrownBy(() -> batch.get(0).keepRenewed())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("completed or released");
        assertThat(inbox.claims().claim("c2").status()).isEqualTo(ClaimStatus.DUPLICATE);
    }

    @Test
    void keepRenewed_calledLate_renewsAtOnce_beforeTheLeaseEnds() throws Exception {
        Inbox inbox = Inbox.builder(store)
                .consumer("reports")
                .lease(Duration.ofSeconds(3))
                .renewEvery(Duration.ofSeconds(1))
                .renewals(scheduler)
                .build();
        Claim claim = inbox.claims().claimAll(List.of("late")).get(0);
        Thread.sleep(2_500); // the claim waited behind a poll's earlier records: its first renewal is past due
        claim.keepRenewed();
        Thread.sleep(700); // past the claim's first lease, before a renewal a full renewEvery from now
        assertThat(inbox.claims().claim("late").status())
                .as("another delivery after the first lease ended")
                .isEqualTo(ClaimStatus.BUSY);
        assertThat(claim.complete()).isTrue();
    }

    @Test
    void keepRenewed_aClaimTakenOverAfterAStall_isLost_andItsCompletionRefused() throws Exception {
        ScheduledThreadPoolExecutor stalled = new ScheduledThreadPoolExecutor(1);
        try {
            Inbox inbox = inbox().renewals(stalled).build();
            Claim claim = inbox.claims().claim("s1");
            CountDownLatch stall = new CountDownLatch(1);
            stalled.execute(() -> {
                try {
                    stall.await(); // the renewal thread stalls past the lease, as in a long GC pause
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            dev.inbox.Lease lease = claim.keepRenewed();
            Thread.sleep(450);
            assertThat(inbox.claims().claim("s1").status())
                    .as("another delivery, after the lease")
                    .isEqualTo(ClaimStatus.ACQUIRED);
            stall.countDown();
            Thread.sleep(200);
            assertThat(lease.isLost()).isTrue();
            assertThat(claim.complete())
                    .as("the completion of a claim taken over")
                    .isFalse();
            assertThat(registry.get("inbox.lease.renewal.failed").counter().count())
                    .isEqualTo(1);
        } finally {
            stalled.shutdownNow();
        }
    }

    @Test
    void claimRenew_extendsTheLease_andBadSettingsFailAtBuild() throws Exception {
        Inbox inbox = inbox().build();
        Claim claim = inbox.claims().claim("r2");
        Thread.sleep(200);
        assertThat(claim.renew()).isTrue();
        Thread.sleep(200); // past the first lease, inside the renewed one
        assertThat(inbox.claims().claim("r2").status()).isEqualTo(ClaimStatus.BUSY);
        assertThat(claim.complete()).isTrue();
        assertThat(claim.renew()).as("a completed claim is not renewed").isFalse();

        assertThatThrownBy(() -> inbox().renewEvery(LEASE).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("renewEvery must be shorter than the lease");
        assertThatThrownBy(() -> inbox().renewEvery(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox().renewals(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> inbox.handleRenewing("r3", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
