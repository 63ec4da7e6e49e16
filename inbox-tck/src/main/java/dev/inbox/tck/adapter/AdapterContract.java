package dev.inbox.tck.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spi.ClaimStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The adapter kit: the rules of {@link AdapterRule}, run through a real broker against the kit's
 * own ledger. An adapter's test extends this class and supplies {@link #createHarness(AdapterKit)}
 * (and, in transactional mode, {@link #ledgerDataSource()}).
 *
 * <p>Each test publishes a few events, plans what goes wrong (the work throws, the store fails, the
 * consumer dies or stops), waits until every event that must be applied is, then waits a quiet
 * period longer than the lease and the back-offs before it counts: an application that comes late
 * (a redelivery after a lease ran out) is counted too.
 *
 * <p>Each rule is {@code @Execution(CONCURRENT)}: with JUnit's parallel execution enabled, the
 * tests of one kit class run at once (each with its own {@link AdapterKit} and harness, so a harness
 * must keep nothing static that one test changes); without it they run one after another. Kit
 * classes are tagged {@value #TAG}, so that a build can run them apart from its other tests — this
 * repository's build runs its kit classes beside each other, in a test execution of their own.
 *
 * <p>If a test fails, check first what its rule's row of the outcome table says the adapter must
 * do, then which message the failure names: "applied 0 times" is a lost event (something
 * acknowledged or committed past it), "applied 2 times" a doubled one (acknowledged too late, or
 * requeued after the work ran), "delivered again" an acknowledgement that never happened.
 */
@Tag(AdapterContract.TAG)
public abstract class AdapterContract {

    /** The JUnit tag of every kit class: {@code adapter-kit}. */
    public static final String TAG = "adapter-kit";

    private AdapterKit kit;
    private AdapterHarness harness;
    private final List<AdapterHarness.Running> running = new ArrayList<>();

    /** The harness of one test: a destination of its own on a real broker, and the adapter on it. */
    protected abstract AdapterHarness createHarness(AdapterKit kit) throws Exception;

    /**
     * Where the transactional ledger lives: the database of the transactional inbox. Null (the
     * default) for lease-mode adapters.
     */
    protected @Nullable DataSource ledgerDataSource() {
        return null;
    }

    /** The lease of the kit's inboxes; default 2 s. */
    protected Duration lease() {
        return Duration.ofSeconds(2);
    }

    /** Every back-off of the adapter; default 100 ms. */
    protected Duration backoff() {
        return Duration.ofMillis(100);
    }

    /** How long the kit waits for what must happen; default 60 s. */
    protected Duration patience() {
        return Duration.ofSeconds(60);
    }

    /**
     * How many retries a BUSY holder (A8, A12), a store outage at the claim (A5) and a poison message
     * (A10) outlast at least: an adapter that gives up after fewer and acknowledges past loses the
     * event, and fails those rules.
     */
    protected static final int RETRIES = 20;

    /**
     * How long a BUSY holder, a store outage and a poison message last at least, beside {@value
     * #RETRIES} retries, so that an adapter that gives up after a while fails too; default 10 s.
     * The waits end as soon as both bounds are reached; each fails after {@link #patience()}.
     */
    protected Duration persistence() {
        return Duration.ofSeconds(10);
    }

    @BeforeEach
    final void startKit() throws Exception {
        kit = new AdapterKit(lease(), backoff(), ledgerDataSource());
        harness = createHarness(kit);
    }

    @AfterEach
    final void stopKit() throws Exception {
        try (AdapterKit k = kit;
                AdapterHarness h = harness) {
            kit.clearFaults();
            for (AdapterHarness.Running r : running) {
                r.crash();
            }
        }
    }

    private AdapterHarness.Running start() throws Exception {
        AdapterHarness.Running r = harness.start();
        running.add(r);
        return r;
    }

    private void publish(String... ids) throws Exception {
        for (String id : ids) {
            harness.publish(id, payload(id));
        }
    }

    private static String payload(String id) {
        return "payload-" + id;
    }

    /** Waits until {@code condition} holds, failing with {@code what} after {@link #patience()}. */
    private void await(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + patience().toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("after %s still not: %s", patience(), what)
                    .isNegative();
            pause(Duration.ofMillis(50));
        }
    }

    private void awaitApplied(String... ids) {
        for (String id : ids) {
            await(
                    payload(id) + " applied (applied " + kit.applied(payload(id)) + " times so far)",
                    () -> kit.applied(payload(id)) > 0);
        }
    }

    /** Waits past the lease and the back-offs, so that a late application is counted too. */
    private void quiet() {
        pause(lease().plus(backoff().multipliedBy(5)).plusMillis(500));
    }

    private void assertAppliedOnce(String... ids) {
        for (String id : ids) {
            assertThat(kit.applied(payload(id)))
                    .as("%s applied (times)", payload(id))
                    .isEqualTo(1);
        }
    }

    /**
     * Waits until {@code retries} counts {@value #RETRIES} and {@link #persistence()} has passed, or
     * {@code over} holds: what the adapter faces (a holder, an outage, a poison message) lasts that
     * long. Fails after {@link #patience()}, when the adapter stopped retrying before that.
     */
    private void outlast(String what, IntSupplier retries, java.util.function.BooleanSupplier over) {
        long start = System.nanoTime();
        long deadline = start + patience().toNanos();
        while (!over.getAsBoolean()
                && (retries.getAsInt() < RETRIES
                        || System.nanoTime() - start < persistence().toNanos())) {
            assertThat(System.nanoTime() - deadline)
                    .as(
                            "after %s, %s only %s times (the kit waits for %s, over at least %s): an adapter that"
                                    + " gives up after some retries and acknowledges or commits past loses the event",
                            patience(), what, retries.getAsInt(), RETRIES, persistence())
                    .isNegative();
            pause(Duration.ofMillis(50));
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static List<Integer> snapshot(List<String> payloads, java.util.function.ToIntFunction<String> count) {
        List<Integer> counts = new ArrayList<>();
        for (String payload : payloads) {
            counts.add(count.applyAsInt(payload));
        }
        return counts;
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A1 duplicate publishes and re-sends: applied once each, every delivery acknowledged")
    void a1_duplicatesAreAppliedOnceAndAcknowledged() throws Exception {
        publish("a", "b", "a", "c", "b", "a");
        AdapterHarness.Running first = start();
        awaitApplied("a", "b", "c");
        quiet();
        assertAppliedOnce("a", "b", "c");
        assertNothingRedelivered(first, List.of("a", "b", "c"), "(a duplicate, most likely)");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A2 work throwing an Exception or a RuntimeException: retried, applied once, nothing after it lost,"
            + " nothing left unacknowledged")
    void a2_failedWorkIsRetried() throws Exception {
        kit.failing(payload("b"), 1, new Exception("adapter kit: planned checked failure"));
        kit.failing(payload("d"), 2, new IllegalStateException("adapter kit: planned runtime failure"));
        publish("a", "b", "c", "d", "e");
        AdapterHarness.Running first = start();
        awaitApplied("a", "b", "c", "d", "e");
        quiet();
        assertAppliedOnce("a", "b", "c", "d", "e");
        // A retried message settled on its last delivery: on SQS with the receipt handle of that
        // receive, not of an earlier one.
        assertNothingRedelivered(first, List.of("a", "b", "c", "d", "e"), "after its work failed and was retried");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A3 work throwing an Error: nothing acknowledged past it, claim released, applied once")
    void a3_anErrorLosesNothing() throws Exception {
        kit.failing(payload("c"), 1, new AssertionError("adapter kit: planned Error"));
        publish("a", "b", "c", "d", "e", "f");
        start();
        awaitApplied("a", "b", "c", "d", "e", "f");
        quiet();
        assertAppliedOnce("a", "b", "c", "d", "e", "f");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A4 no key, a key function that throws, an id over the limit: dead-lettered, never applied")
    void a4_keylessMessagesAreDeadLettered() throws Exception {
        String overLong = "x".repeat(600);
        harness.publish("a", payload("a"));
        harness.publish(null, "keyless");
        harness.publish("b", payload("b"));
        harness.publish(AdapterKit.THROWING_ID, "throwing-key");
        harness.publish("c", payload("c"));
        harness.publish(overLong, "over-long");
        harness.publish("d", payload("d"));
        start();
        awaitApplied("a", "b", "c", "d");
        for (String bad : List.of("keyless", "throwing-key", "over-long")) {
            await(bad + " dead-lettered", () -> kit.deadLetters(bad) > 0);
        }
        quiet();
        assertAppliedOnce("a", "b", "c", "d");
        for (String bad : List.of("keyless", "throwing-key", "over-long")) {
            assertThat(kit.applied(bad))
                    .as("%s applied (a message without a usable key)", bad)
                    .isZero();
            assertThat(kit.deadLetters(bad)).as("%s dead-lettered (times)", bad).isEqualTo(1);
        }
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A5 the store down at the claim: nothing applied or acknowledged meanwhile, then applied once")
    void a5_storeDownAtTheClaim() throws Exception {
        kit.failClaims(true);
        publish("a", "b", "c");
        start();
        List<String> payloads = List.of(payload("a"), payload("b"), payload("c"));
        // Any of them: an adapter that claims one message at a time, waiting on it, may begin with
        // another partition's or queue's head than the first published.
        await("a first delivery", () -> payloads.stream().anyMatch(p -> kit.deliveries(p) > 0));
        outlast("the adapter claimed while the store was down", kit::failedClaims, () -> false);
        assertThat(snapshot(payloads, kit::applied))
                .as("applications while every claim failed (applied without a claim)")
                .containsOnly(0);
        kit.failClaims(false);
        awaitApplied("a", "b", "c");
        quiet();
        assertAppliedOnce("a", "b", "c");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A6 a completion that keeps failing after the work ran: acknowledged, not applied again")
    void a6_failedCompletionIsAcknowledged() throws Exception {
        kit.failCompletionsOf("b");
        publish("a", "b", "c");
        AdapterHarness.Running first = start();
        awaitApplied("a", "b", "c");
        quiet();
        quiet();
        assertAppliedOnce("a", "b", "c");
        assertNothingRedelivered(first, List.of("a", "b", "c"), "after its completion failed");
    }

    /**
     * Stops {@code first} and starts another consumer: none of {@code ids} may be delivered again
     * (a message neither acknowledged nor requeued comes back when its consumer closes).
     */
    private void assertNothingRedelivered(AdapterHarness.Running first, List<String> ids, String when)
            throws Exception {
        first.stop();
        List<String> payloads = ids.stream().map(AdapterContract::payload).toList();
        List<Integer> delivered = snapshot(payloads, kit::deliveries);
        start();
        quiet();
        assertThat(snapshot(payloads, kit::deliveries))
                .as(
                        "deliveries of %s after a second consumer started: delivered again means a message was"
                                + " never acknowledged or committed %s",
                        payloads, when)
                .isEqualTo(delivered);
        assertAppliedOnce(ids.toArray(String[]::new));
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A7 the consumer's broker connection dies after the work, before its acknowledgement: every event"
            + " applied once")
    void a7_crashAfterTheWork() throws Exception {
        kit.crashingAfter(payload("b"));
        publish("a", "b", "c", "d");
        kit.crashTarget(start());
        // In lease mode the work counts when it returns; in transactional mode only if its transaction
        // committed, which an adapter that commits after its acknowledgement does not reach.
        await(payload("b") + "'s work ran and its consumer crashed", () -> kit.crashedAfter(payload("b")));
        start();
        awaitApplied("a", "b", "c", "d");
        await(
                payload("b") + " delivered again after the crash (a harness's crash() must return only once nothing"
                        + " more can be acknowledged)",
                () -> kit.deliveries(payload("b")) > 1);
        // Two quiet periods: a doubled b comes only once its lease ended (an adapter that never
        // completed its claim leaves it to the next delivery).
        quiet();
        quiet();
        assertAppliedOnce("a", "b", "c", "d");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A14 the consumer's broker connection dies while the outcome is recorded: nothing acknowledged"
            + " before, delivered again, applied once")
    void a14_crashWhileTheOutcomeIsRecorded() throws Exception {
        kit.crashingWhereRecorded(payload("b"), "b");
        publish("a", "b", "c", "d");
        kit.crashTarget(start());
        await(
                "the consumer crashed at " + payload("b") + "'s completion (lease) or commit (transactional)",
                kit::crashedWhereRecorded);
        start();
        awaitApplied("a", "b", "c", "d");
        await(
                payload("b") + " delivered again after its consumer died while its outcome was being recorded: not"
                        + " delivered again means it was acknowledged (committed, deleted, accepted) before its"
                        + " outcome was recorded, which a process that dies there turns into a lost or doubled event",
                () -> kit.deliveries(payload("b")) > 1);
        quiet();
        assertAppliedOnce("a", "b", "c", "d");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 BUSY while another delivery holds the event: retried, never acknowledged past, then applied once")
    void a8_busyIsRetriedUntilTheHolderFails() throws Exception {
        publish("a");
        start();
        awaitApplied("a");
        Runnable holder = kit.holdElsewhere("b");
        publish("b", "c");
        outlast(payload("b") + " was claimed while another delivery held it", () -> kit.claims("b") - 1, () -> false);
        assertThat(kit.applied(payload("b")))
                .as("%s applied while another delivery held it", payload("b"))
                .isZero();
        holder.run();
        awaitApplied("b", "c");
        quiet();
        assertAppliedOnce("a", "b", "c");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A9 a graceful stop finishes and acknowledges the message in hand; the rest go to the next consumer")
    void a9_gracefulStop() throws Exception {
        AdapterKit.Hold hold = new AdapterKit.Hold();
        kit.holding(payload("b"), hold);
        publish("a", "b", "c", "d", "e");
        AdapterHarness.Running first = start();
        assertThat(hold.started.await(patience().toMillis(), TimeUnit.MILLISECONDS))
                .as("%s reached the handler", payload("b"))
                .isTrue();
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> {
            try {
                first.stop();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        pause(Duration.ofMillis(300));
        hold.released.countDown();
        stopping.get(patience().toMillis(), TimeUnit.MILLISECONDS);
        IntSupplier delivered = () -> kit.deliveries(payload("b"));
        assertThat(kit.applied(payload("b")))
                .as("%s applied by the stopping consumer", payload("b"))
                .isEqualTo(1);
        start();
        awaitApplied("a", "b", "c", "d", "e");
        quiet();
        assertAppliedOnce("a", "b", "c", "d", "e");
        assertThat(delivered.getAsInt())
                .as(
                        "deliveries of %s, finished during the stop: delivered again means the stop did not"
                                + " acknowledge or commit it",
                        payload("b"))
                .isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A10 a poison message: retried at the back-off's pace, never acknowledged past, then applied once")
    void a10_poisonMessageIsRetriedAtTheBackOffsPace() throws Exception {
        kit.failing(payload("p"), Integer.MAX_VALUE, new IllegalStateException("adapter kit: planned poison"));
        publish("a", "p", "b");
        start();
        await(payload("p") + " delivered", () -> kit.deliveries(payload("p")) > 0);
        int before = kit.deliveries(payload("p"));
        long windowStart = System.nanoTime();
        outlast(
                payload("p") + " was delivered while its work failed",
                () -> kit.deliveries(payload("p")),
                () -> kit.deadLetters(payload("p")) > 0);
        Duration window = Duration.ofNanos(System.nanoTime() - windowStart);
        int attempts = kit.deliveries(payload("p")) - before;
        long allowed = 2 * (window.toMillis() / backoff().toMillis()) + 5;
        assertThat(attempts)
                .as(
                        "deliveries of %s in %s while its work failed, with a back-off of %s (at most %s):"
                                + " more means it is retried at full speed",
                        payload("p"), window, backoff(), allowed)
                .isLessThanOrEqualTo((int) allowed);
        assertThat(kit.applied(payload("p")))
                .as("%s applied while its work failed", payload("p"))
                .isZero();
        kit.heal(payload("p"));
        await(
                payload("p") + " applied or dead-lettered once its work succeeds",
                () -> kit.applied(payload("p")) + kit.deadLetters(payload("p")) > 0);
        awaitApplied("a", "b");
        quiet();
        assertThat(kit.applied(payload("p")) + kit.deadLetters(payload("p")))
                .as(
                        "%s applied (%s) plus dead-lettered (%s): 0 is a poison message acknowledged past,"
                                + " 2 one both applied and dead-lettered or applied twice",
                        payload("p"), kit.applied(payload("p")), kit.deadLetters(payload("p")))
                .isEqualTo(1);
        assertAppliedOnce("a", "b");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A11 work longer than the lease keeps the event: another delivery meanwhile is BUSY, applied once")
    void a11_workLongerThanTheLease() throws Exception {
        AdapterKit.Hold hold = new AdapterKit.Hold();
        kit.holding(payload("s"), hold);
        publish("a", "s", "b");
        start();
        assertThat(hold.started.await(patience().toMillis(), TimeUnit.MILLISECONDS))
                .as("%s reached the handler", payload("s"))
                .isTrue();
        // A second consumer on the same destination meanwhile: whatever the first one received and
        // still holds — a done (whose completion may wait for the rest of its poll or receive), s in
        // work, b not begun — must not reach it through the broker as free work.
        start();
        pause(lease().multipliedBy(5).dividedBy(2));
        Map<String, ClaimStatus> elsewhere = new LinkedHashMap<>();
        if (harness.mode() == AdapterHarness.Mode.LEASE) {
            // Another consumer's delivery of s (in its work) and of b (claimed with s by a consumer
            // that claims a whole poll, its work not begun): where the adapter's lease ended, that
            // delivery takes the event and applies it.
            for (String id : List.of("s", "b")) {
                elsewhere.put(id, kit.deliverElsewhere(id, payload(id)));
            }
        }
        hold.released.countDown();
        awaitApplied("a", "s", "b");
        quiet();
        for (String id : List.of("a", "s", "b")) {
            assertThat(kit.applied(payload(id)))
                    .as(
                            "%s applied (times), after %s of work on %s with a second consumer running and another"
                                    + " delivery finding it %s: twice means the adapter's lease, or the broker's hold"
                                    + " on the message, ended while the event was in hand or done but not yet"
                                    + " recorded (renew both until the outcome is recorded: Claim.keepRenewed,"
                                    + " Inbox.handleRenewing, visibility or lock extensions)",
                            payload(id), lease().multipliedBy(5).dividedBy(2), payload("s"), elsewhere.get(id))
                    .isEqualTo(1);
        }
        assertThat(elsewhere.get("s"))
                .as("another delivery of %s while its work ran past the lease", payload("s"))
                .isIn(null, ClaimStatus.BUSY);
        assertThat(kit.deliveries(payload("s")))
                .as(
                        "deliveries of %s, in hand for %s with a second consumer running: more than one means"
                                + " the broker handed it out again while its work ran (keep the broker's hold on it"
                                + " alive too: SQS visibility, a share group's acquisition lock)",
                        payload("s"), lease().multipliedBy(5).dividedBy(2))
                .isEqualTo(1);
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName(
            "A13 the store failing once at the commit or the completion: applied once, a later re-send a duplicate")
    void a13_storeFailsOnceWhereTheOutcomeIsRecorded() throws Exception {
        kit.failingOnceWhereRecorded(payload("b"), "b");
        publish("a", "b", "c");
        start();
        awaitApplied("a", "b", "c");
        await(
                "the planned failure of " + payload("b") + "'s commit (transactional) or completion (lease)",
                () -> kit.recordFaults() > 0);
        quiet();
        assertAppliedOnce("a", "b", "c");
        int delivered = kit.deliveries(payload("b"));
        publish("b");
        await(payload("b") + " re-sent and delivered", () -> kit.deliveries(payload("b")) > delivered);
        quiet();
        assertThat(kit.applied(payload("b")))
                .as(
                        "%s applied (times) after a re-send: twice means its outcome was never recorded after the"
                                + " store failed once (a commit that failed taken for done, a failed completion not"
                                + " retried)",
                        payload("b"))
                .isEqualTo(1);
        assertAppliedOnce("a", "c");
    }

    @Test
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName(
            "A12 the broker connection cut and restored: the consumer comes back by itself, every event applied once")
    void a12_connectionCutAndRestored() throws Exception {
        AdapterKit.Hold hold = new AdapterKit.Hold();
        kit.holding(payload("b"), hold);
        publish("a", "b", "c");
        AdapterHarness.Running first = start();
        assertThat(hold.started.await(patience().toMillis(), TimeUnit.MILLISECONDS))
                .as("%s reached the handler", payload("b"))
                .isTrue();
        first.cutConnection();
        // b's work ends while the broker is unreachable: its acknowledgement or commit fails.
        hold.released.countDown();
        pause(backoff().multipliedBy(5).plusMillis(500));
        first.restoreConnection();
        // A BUSY answer on the restored connection: the adapter must still be able to retry later.
        Runnable holder = kit.holdElsewhere("d");
        publish("d", "e");
        outlast(
                payload("d") + " was claimed again after a BUSY answer once the connection was restored (an"
                        + " adapter that did not come back, or whose retry died with the old connection, retries"
                        + " none)",
                () -> kit.claims("d") - 1,
                () -> false);
        holder.run();
        awaitApplied("a", "b", "c", "d", "e");
        quiet();
        assertAppliedOnce("a", "b", "c", "d", "e");
        assertNothingRedelivered(first, List.of("a", "b", "c", "d", "e"), "after the connection came back");
    }
}
