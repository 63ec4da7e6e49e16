package dev.inbox.tck;

import static dev.inbox.tck.Race.count;
import static dev.inbox.tck.Race.race;
import static dev.inbox.tck.TckSupport.pause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.ItemResult;
import dev.inbox.Reply;
import dev.inbox.ResultCodec;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract every {@link InboxStore} must pass. Extend it, implement {@link
 * #createStore(Duration)}, and run it with JUnit 5:
 *
 * <pre>{@code
 * class MyStoreTest extends InboxStoreContract {
 *     @Override
 *     protected InboxStore createStore(Duration grace) {
 *         return MyStore.builder(dataSource).grace(grace).build();
 *     }
 * }
 * }</pre>
 *
 * <p>Each test uses a consumer name of its own, so a store may share its table or keyspace with
 * other tests. Durations are short and real (a few hundred milliseconds by default, see {@link
 * #timeUnit()}): a store whose clock is coarse may raise it.
 */
@TestInstance(TestInstance.Lifecycle.PER_METHOD)
public abstract class InboxStoreContract implements InboxAdminRules {

    /** The store under test, created before each test with {@link #defaultGrace()}. */
    protected InboxStore store;

    /** A consumer name of this test's own. */
    protected String consumer;

    private final List<InboxStore> created = new ArrayList<>();

    /**
     * Returns a new store whose records stay {@code grace} past expiry before they count as absent.
     * It may share its backing table or keyspace with other stores the kit creates.
     */
    protected abstract InboxStore createStore(Duration grace) throws Exception;

    /**
     * Returns a new store that holds no records and shares none with the other stores the kit
     * creates (a table or keyspace of its own, emptied), for rule R2, which counts what {@link
     * InboxStore#purge()} removes across the whole store. The default, {@link
     * #createStore(Duration)}, is right for stores that share nothing, such as in-memory ones.
     */
    protected InboxStore createEmptyStore(Duration grace) throws Exception {
        return createStore(grace);
    }

    /**
     * The grace of the store most tests use; long enough that nothing a test writes is removed
     * while it runs.
     */
    protected Duration defaultGrace() {
        return Duration.ofMinutes(10);
    }

    /**
     * The short duration used for leases and retentions that must expire during a test; waits are
     * multiples of it. Raise it for a store whose clock or expiry is coarse.
     */
    protected Duration timeUnit() {
        return Duration.ofMillis(250);
    }

    /** How many threads race in rule C8. */
    protected int raceThreads() {
        return 8;
    }

    /** How many rounds the threads of rule C8 race. */
    protected int raceRounds() {
        return 1000;
    }

    /** A batch size larger than the store sends in one request, for rules B1 and B2. */
    protected int largeBatchSize() {
        return 2_501;
    }

    /**
     * False for a store whose records expire natively (Redis, DynamoDB TTL) and whose purge
     * therefore may remove less than everything expired; rule R2 then checks only that the count is
     * within bounds and that expired records behave as absent.
     */
    protected boolean purgeRemovesAllExpired() {
        return true;
    }

    /**
     * Runs the store's idempotent schema creation (such as {@code createSchemaIfMissing()}); rule L1
     * calls it twice on a store that already holds records. Stores without a schema keep the
     * default, which does nothing.
     */
    protected void createSchema(InboxStore store) throws Exception {}

    /** A store created with {@code grace}, closed after the test. */
    protected final InboxStore storeWithGrace(Duration grace) throws Exception {
        InboxStore extra = createStore(grace);
        created.add(extra);
        return extra;
    }

    @BeforeEach
    void openStore() throws Exception {
        consumer = TckSupport.freshConsumer();
        store = storeWithGrace(defaultGrace());
    }

    @AfterEach
    void closeStores() {
        for (InboxStore s : created) {
            s.close();
        }
        created.clear();
    }

    // ----------------------------------------------------------------------------------- claims

    @Test
    @DisplayName("C1 a fresh key is ACQUIRED")
    void c1_freshKeyIsAcquired() {
        assertThat(store.claim(request("fresh", OwnerToken.random(), long_())))
                .as("claim of a key never seen")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("C2 a live COMPLETED record makes a claim DUPLICATE")
    void c2_completedRecordIsDuplicate() {
        OwnerToken first = OwnerToken.random();
        claimAndComplete("done", first);
        assertThat(store.claim(request("done", OwnerToken.random(), long_())))
                .as("another delivery of a completed key")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    @DisplayName("C3 another owner's live lease makes a claim BUSY")
    void c3_liveLeaseOfAnotherOwnerIsBusy() {
        assertThat(store.claim(request("held", OwnerToken.random(), long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("held", OwnerToken.random(), long_())))
                .as("a second owner while the first holds a live lease")
                .isEqualTo(ClaimResult.busy());
    }

    @Test
    @DisplayName("C4 an expired lease is taken over; the old owner can no longer complete or release")
    void c4_expiredLeaseIsTakenOver() {
        OwnerToken old = OwnerToken.random();
        OwnerToken next = OwnerToken.random();
        assertThat(store.claim(request("slow", old, timeUnit()))).isEqualTo(ClaimResult.acquired());
        pause(timeUnit().multipliedBy(2));

        assertThat(store.claim(request("slow", next, long_())))
                .as("claim after the first owner's lease expired")
                .isEqualTo(ClaimResult.takenOver());
        assertThat(store.complete(key("slow"), old, long_()))
                .as("complete by the old owner")
                .isFalse();
        assertThat(store.release(key("slow"), old))
                .as("release by the old owner")
                .isFalse();
        assertThat(store.claim(request("slow", OwnerToken.random(), long_())))
                .as("the new owner's lease is live")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("slow"), next, long_()))
                .as("complete by the new owner")
                .isTrue();
    }

    @Test
    @DisplayName("C5 the same owner claiming again is ACQUIRED, never DUPLICATE")
    void c5_sameOwnerRetryIsAcquired() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("retry", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("retry", owner, long_())))
                .as("the same owner retrying after a lost reply")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("retry", OwnerToken.random(), long_())))
                .as("the retry kept the lease")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("retry"), owner, long_())).isTrue();
    }

    @Test
    @DisplayName("C5 a retried claim after the lease expired is ACQUIRED by the same owner")
    void c5_sameOwnerRetryAfterExpiryIsAcquired() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("late-retry", owner, timeUnit()))).isEqualTo(ClaimResult.acquired());
        pause(timeUnit().multipliedBy(2));
        assertThat(store.claim(request("late-retry", owner, long_())).isAcquired())
                .as("same owner after its own lease expired")
                .isTrue();
        assertThat(store.complete(key("late-retry"), owner, long_())).isTrue();
    }

    @Test
    @DisplayName("C6 keys are scoped by consumer")
    void c6_keysAreScopedByConsumer() {
        String other = TckSupport.freshConsumer();
        claimAndComplete("shared-id", OwnerToken.random());
        assertThat(store.claim(ClaimRequest.of(InboxKey.of(other, "shared-id"), OwnerToken.random(), long_())))
                .as("the same id under another consumer")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("shared-id", OwnerToken.random(), long_()))
                        .status())
                .as("the first consumer's record is untouched")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
    }

    /** Ids that a careless store would fold, normalise, truncate or mis-escape into one another. */
    static List<String> trickyIds() {
        String prefix511 = "k".repeat(511);
        return List.of(
                "order-42",
                "Order-42",
                "ORDER-42",
                "order-42 ",
                " order-42",
                "order-42\t",
                "\u00e9t\u00e9", // NFC
                "e\u0301te\u0301", // NFD of the same text
                "stra\u00dfe",
                "strasse",
                "\u0130stanbul",
                "istanbul",
                "\uff21", // fullwidth A
                "A",
                "a",
                prefix511 + "a",
                prefix511 + "b",
                prefix511,
                "\u00e9".repeat(256), // 512 bytes of 2-byte characters
                "\ud83d\ude00".repeat(128), // 512 bytes of emoji
                "\ud83d\ude00".repeat(127) + "\ud83d\ude01",
                "it's",
                "it''s",
                "\"quoted\"",
                "100%",
                "100_",
                "1000",
                "a_b",
                "a%b",
                "a\\b",
                "a\\\\b",
                "a/b",
                "{tag}",
                "{tag}x",
                "x{tag}",
                "--",
                "'; DROP TABLE inbox; --",
                "line\nbreak",
                "line\rbreak",
                "\u0001control");
    }

    @Test
    @DisplayName("C7 keys are compared exactly and never truncated")
    void c7_keysAreComparedExactly() {
        List<String> ids = trickyIds();
        assertThat(new HashSet<>(ids)).as("the kit's own ids are distinct").hasSize(ids.size());
        for (String id : ids) {
            assertThat(store.claim(request(id, OwnerToken.random(), long_())))
                    .as("first claim of %s (a BUSY means it collided with an earlier id)", describe(id))
                    .isEqualTo(ClaimResult.acquired());
        }
        for (String id : ids) {
            assertThat(store.claim(request(id, OwnerToken.random(), long_())))
                    .as("second claim of %s", describe(id))
                    .isEqualTo(ClaimResult.busy());
        }
    }

    @Test
    @DisplayName("C7 a completed key does not suppress keys that differ in any byte")
    void c7_completedKeyDoesNotSuppressLookalikes() {
        List<String> ids = trickyIds();
        for (int i = 0; i < ids.size(); i += 2) {
            claimAndComplete(ids.get(i), OwnerToken.random());
        }
        for (int i = 0; i < ids.size(); i++) {
            ClaimResult expected =
                    i % 2 == 0 ? ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED) : ClaimResult.acquired();
            assertThat(store.claim(request(ids.get(i), OwnerToken.random(), long_())))
                    .as("claim of %s", describe(ids.get(i)))
                    .isEqualTo(expected);
        }
    }

    /**
     * The store instances the contenders of a race are spread over, as consumer processes would
     * each have their own: {@code store} and a second instance when the two see each other's records
     * (one table, one server), so that a store serialising inside one instance (a Java lock) cannot
     * pass for atomic; {@code store} alone for instances that keep records of their own (in memory).
     */
    private List<InboxStore> raceInstances() throws Exception {
        InboxStore second = storeWithGrace(defaultGrace());
        return sharesRecords(store, second) ? List.of(store, second) : List.of(store);
    }

    @Test
    @DisplayName("C8 racing threads: exactly one ACQUIRED per round")
    void c8_raceHasExactlyOneWinner() throws Exception {
        int threads = raceThreads();
        List<InboxStore> instances = raceInstances();
        List<List<ClaimResult>> rounds = race(
                threads,
                raceRounds(),
                (round, thread) -> instances
                        .get(thread % instances.size())
                        .claim(request("race-" + round, OwnerToken.random(), long_())),
                ClaimResult[]::new);
        for (int r = 0; r < rounds.size(); r++) {
            List<ClaimResult> results = rounds.get(r);
            assertThat(count(results, ClaimResult.acquired()))
                    .as("ACQUIRED in round %d of %d threads: %s", r, threads, results)
                    .isEqualTo(1);
            assertThat(count(results, ClaimResult.busy()))
                    .as("BUSY in round %d: %s", r, results)
                    .isEqualTo(threads - 1);
        }
    }

    @Test
    @DisplayName("C9 racing on an expired lease, alone or against the old owner's complete or release, or a purge:"
            + " exactly one holder")
    void c9_raceOnAnExpiredLease() throws Exception {
        List<String> wrong = TakeoverRace.violations(
                raceInstances(), storeWithGrace(Duration.ofMillis(1)), consumer, raceThreads(), raceRounds());
        assertThat(wrong)
                .as("rounds in which the key ended with more or fewer holders than one")
                .isEmpty();
    }

    @Test
    @DisplayName("C8 racing overlapping claimAll batches: exactly one ACQUIRED per key")
    void c8_overlappingBatchesHaveOneWinnerPerKey() throws Exception {
        int threads = raceThreads();
        List<InboxStore> instances = raceInstances();
        int keysPerBatch = 20;
        int rounds = Math.max(10, raceRounds() / 20);
        List<List<List<ClaimResult>>> all = new ArrayList<>();
        List<List<List<String>>> orders = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            List<List<String>> perThread = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<String> ids = new ArrayList<>();
                for (int k = 0; k < keysPerBatch; k++) {
                    ids.add("batch-race-" + r + "-" + k);
                }
                Collections.shuffle(ids, new Random(31L * r + t));
                perThread.add(ids);
            }
            orders.add(perThread);
        }
        @SuppressWarnings("unchecked")
        List<List<List<ClaimResult>>> results = race(
                threads,
                rounds,
                (round, thread) -> {
                    OwnerToken owner = OwnerToken.random();
                    List<ClaimRequest> batch = new ArrayList<>();
                    for (String id : orders.get(round).get(thread)) {
                        batch.add(request(id, owner, long_()));
                    }
                    return instances.get(thread % instances.size()).claimAll(batch);
                },
                List[]::new);
        all.addAll(results);
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < keysPerBatch; k++) {
                String id = "batch-race-" + r + "-" + k;
                int acquired = 0;
                for (int t = 0; t < threads; t++) {
                    int index = orders.get(r).get(t).indexOf(id);
                    ClaimResult result = all.get(r).get(t).get(index);
                    assertThat(result.status())
                            .as("%s for thread %d", id, t)
                            .isIn(dev.inbox.spi.ClaimStatus.ACQUIRED, dev.inbox.spi.ClaimStatus.BUSY);
                    if (result.isAcquired()) {
                        acquired++;
                    }
                }
                assertThat(acquired).as("owners that ACQUIRED %s", id).isEqualTo(1);
            }
        }
    }

    // ------------------------------------------------------------------------------ fingerprint

    @Test
    @DisplayName("F1 a DUPLICATE reports whether the payload fingerprint matches")
    void f1_duplicateReportsFingerprintMatch() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("fp", owner, long_()).withFingerprint("sha256:aaaa")))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("fp"), owner, long_())).isTrue();

        assertThat(store.claim(request("fp", OwnerToken.random(), long_()).withFingerprint("sha256:aaaa")))
                .as("same payload")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH));
        assertThat(store.claim(request("fp", OwnerToken.random(), long_()).withFingerprint("sha256:bbbb")))
                .as("another payload under the same key")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MISMATCH));
        assertThat(store.claim(request("fp", OwnerToken.random(), long_())))
                .as("a claim without fingerprint")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));

        claimAndComplete("no-fp", OwnerToken.random());
        assertThat(store.claim(request("no-fp", OwnerToken.random(), long_()).withFingerprint("sha256:aaaa")))
                .as("a record kept without fingerprint")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    @DisplayName("F1 the fingerprint of the owner that completed is the one kept")
    void f1_fingerprintOfTakeoverOwnerIsKept() {
        assertThat(store.claim(
                        request("fp-takeover", OwnerToken.random(), timeUnit()).withFingerprint("first")))
                .isEqualTo(ClaimResult.acquired());
        pause(timeUnit().multipliedBy(2));
        OwnerToken next = OwnerToken.random();
        assertThat(store.claim(request("fp-takeover", next, long_()).withFingerprint("second")))
                .isEqualTo(ClaimResult.takenOver());
        assertThat(store.complete(key("fp-takeover"), next, long_())).isTrue();
        assertThat(store.claim(
                        request("fp-takeover", OwnerToken.random(), long_()).withFingerprint("second")))
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH));
    }

    // -------------------------------------------------------------------------------- ownership

    @Test
    @DisplayName("P1 complete by the current owner succeeds and later claims are DUPLICATE")
    void p1_completeByOwner() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("p1", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("p1"), owner, long_()))
                .as("complete by the owner")
                .isTrue();
        assertThat(store.complete(key("p1"), owner, long_()))
                .as("completing again is harmless")
                .isTrue();
        assertThat(store.claim(request("p1", OwnerToken.random(), long_())).status())
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.claim(request("p1", owner, long_())).status())
                .as("even the owner's own claim after completion")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
    }

    @Test
    @DisplayName("P2 complete by another owner or of an absent key fails and changes nothing")
    void p2_completeByStrangerFails() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("p2", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("p2"), OwnerToken.random(), long_()))
                .as("complete by a stranger")
                .isFalse();
        assertThat(store.claim(request("p2", OwnerToken.random(), long_())))
                .as("the record is still IN_PROGRESS")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("p2-absent"), owner, long_()))
                .as("complete of an absent key")
                .isFalse();
        assertThat(store.claim(request("p2-absent", OwnerToken.random(), long_())))
                .as("nothing was created by the failed complete")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("P3 release by the current owner succeeds and lets the next claim in")
    void p3_releaseByOwnerLetsNextIn() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("p3", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.release(key("p3"), owner)).as("release by the owner").isTrue();
        assertThat(store.claim(request("p3", OwnerToken.random(), long_())))
                .as("a redelivery after release")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.release(key("p3"), owner)).as("releasing twice").isFalse();
    }

    @Test
    @DisplayName("P4 release by another owner or of a COMPLETED record fails and changes nothing")
    void p4_releaseByStrangerOrOfCompletedFails() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("p4", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.release(key("p4"), OwnerToken.random()))
                .as("release by a stranger")
                .isFalse();
        assertThat(store.claim(request("p4", OwnerToken.random(), long_()))).isEqualTo(ClaimResult.busy());

        assertThat(store.complete(key("p4"), owner, long_())).isTrue();
        assertThat(store.release(key("p4"), owner))
                .as("release of a COMPLETED record by its owner")
                .isFalse();
        assertThat(store.claim(request("p4", OwnerToken.random(), long_())).status())
                .as("the completed record still suppresses duplicates")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.release(key("p4-absent"), owner))
                .as("release of an absent key")
                .isFalse();
    }

    // -------------------------------------------------------------------------------- retention

    @Test
    @DisplayName("D1 every held record, expiry, owner and fingerprint gets the answer of the decision table")
    void d1_decisionTable() throws Exception {
        InboxStore pastGrace = storeWithGrace(timeUnit());
        List<String> wrong = DecisionTable.mismatches(store, pastGrace, consumer, timeUnit());
        assertThat(wrong)
                .as("claims whose answer differs from the decision table (held, claimant, fingerprints)")
                .isEmpty();
    }

    @Test
    @DisplayName("B2 completeAll equals completing each in order: strangers, absent and released keys, repeats")
    void b2_completeAllEqualsCompletingEach() {
        OwnerToken owner = OwnerToken.random();
        OwnerToken other = OwnerToken.random();
        for (String id : List.of("b2-a", "b2-b", "b2-c", "b2-released")) {
            assertThat(store.claim(request(id, owner, long_()))).isEqualTo(ClaimResult.acquired());
        }
        assertThat(store.claim(request("b2-other", other, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.release(key("b2-released"), owner)).isTrue();
        List<HeldKey> batch = List.of(
                new HeldKey(key("b2-a"), owner),
                new HeldKey(key("b2-b"), owner),
                new HeldKey(key("b2-other"), owner),
                new HeldKey(key("b2-absent"), owner),
                new HeldKey(key("b2-a"), owner),
                new HeldKey(key("b2-c"), other),
                new HeldKey(key("b2-released"), owner));
        assertThat(store.completeAll(batch, long_()))
                .as("answers in order")
                .containsExactly(true, true, false, false, true, false, false);
        assertThat(store.claim(request("b2-a", OwnerToken.random(), long_())).status())
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.claim(request("b2-b", OwnerToken.random(), long_())).status())
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.claim(request("b2-c", OwnerToken.random(), long_())))
                .as("a key completed by the wrong owner is still the owner's lease")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.claim(request("b2-other", OwnerToken.random(), long_())))
                .as("a stranger's key is still its owner's lease")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.claim(request("b2-absent", OwnerToken.random(), long_())))
                .as("nothing was created for an absent key")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.completeAll(List.of(), long_())).isEmpty();
    }

    @Test
    @DisplayName("B2 completeAll of a batch larger than one request completes every item")
    void b2_completeAllOfALargeBatch() {
        int size = largeBatchSize();
        OwnerToken owner = OwnerToken.random();
        List<ClaimRequest> claims = new ArrayList<>();
        List<HeldKey> held = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String id = String.format("b2-large-%06d", i);
            claims.add(request(id, owner, long_()));
            held.add(new HeldKey(key(id), owner));
        }
        assertThat(store.claimAll(claims)).containsOnly(ClaimResult.acquired());
        assertThat(store.completeAll(held, long_())).hasSize(size).containsOnly(true);
        for (int i = 0; i < size; i += Math.max(1, size / 7)) {
            assertThat(store.claim(request(String.format("b2-large-%06d", i), OwnerToken.random(), long_()))
                            .status())
                    .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        }
    }

    @Test
    @DisplayName("B2 handleAll runs each new item's work once, releases failed items and completes the rest")
    void b2_handleAll() {
        Inbox inbox = Inbox.builder(store).consumer(consumer).lease(long_()).build();
        Claim elsewhere = inbox.claims().claim("ha-busy");
        assertThat(elsewhere.isAcquired()).isTrue();
        assertThat(inbox.handle("ha-dup", () -> {}).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        List<String> ran = new ArrayList<>();
        List<ItemResult<String>> results =
                inbox.handleAll(List.of("ha-1", "ha-dup", "ha-2", "ha-fail", "ha-busy", "ha-1"), id -> id, id -> {
                    ran.add(id);
                    if (id.equals("ha-fail")) {
                        throw new IllegalStateException("the work of " + id + " failed");
                    }
                });
        assertThat(ran).as("the work ran for the new items, in order").containsExactly("ha-1", "ha-2", "ha-fail");
        assertThat(results)
                .extracting(r -> r.isFailed() ? "FAILED" : r.result().outcome().name())
                .containsExactly("PROCESSED", "DUPLICATE", "PROCESSED", "FAILED", "BUSY", "DUPLICATE");
        assertThat(results.get(3).failure()).hasMessageContaining("ha-fail");
        assertThat(results)
                .extracting(ItemResult::shouldAcknowledge)
                .containsExactly(true, true, true, false, false, true);
        assertThat(inbox.claims().claim("ha-1").status())
                .as("completed")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(inbox.claims().claim("ha-2").status())
                .as("completed")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(inbox.claims().claim("ha-fail").status())
                .as("released")
                .isEqualTo(dev.inbox.spi.ClaimStatus.ACQUIRED);
        assertThat(inbox.claims().claim("ha-busy").status())
                .as("still the other delivery's")
                .isEqualTo(dev.inbox.spi.ClaimStatus.BUSY);
    }

    // ------------------------------------------------------------------------- stored results

    /** Every byte value, the record separators of text formats among them, and invalid UTF-8. */
    private static byte[] everyByte() {
        byte[] bytes = new byte[512];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i % 256);
        }
        bytes[300] = '\n';
        bytes[301] = (byte) 0xC3; // a UTF-8 lead byte followed by no continuation
        bytes[302] = ' ';
        return bytes;
    }

    @Test
    @DisplayName("S1 a DUPLICATE carries exactly the bytes the completing owner stored: binary, empty, at the"
            + " limit, in a batch, late in grace")
    void s1_duplicateCarriesTheStoredResult() {
        int limit = store.maxResultBytes();
        assertThat(limit).as("maxResultBytes() of a store that keeps results").isPositive();
        byte[] atLimit = new byte[limit];
        new Random(limit).nextBytes(atLimit);
        List<byte[]> results = List.of(everyByte(), new byte[0], atLimit, "{\"ok\":true}\n".getBytes());
        for (int i = 0; i < results.size(); i++) {
            String id = "s1-" + i;
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(request(id, owner, long_()).withFingerprint("fp")))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(key(id), owner, long_(), results.get(i)))
                    .as("complete with a result of %d bytes", results.get(i).length)
                    .isTrue();
            ClaimResult duplicate =
                    store.claim(request(id, OwnerToken.random(), long_()).withFingerprint("fp"));
            assertThat(duplicate)
                    .as("the duplicate of %s", id)
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH, results.get(i)));
            assertThat(duplicate.storedResult()).as("the bytes of %s", id).isEqualTo(results.get(i));
        }
        OwnerToken first = OwnerToken.random();
        assertThat(store.claim(request("s1-again", first, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("s1-again"), first, long_(), new byte[] {1}))
                .isTrue();
        assertThat(store.complete(key("s1-again"), first, long_(), new byte[] {2}))
                .as("the owner completing again")
                .isTrue();
        assertThat(store.claimAll(List.of(
                        request("s1-0", OwnerToken.random(), long_()),
                        request("s1-again", OwnerToken.random(), long_()),
                        request("s1-batch-new", OwnerToken.random(), long_()))))
                .as("claimAll carries the results too; a repeated completion keeps the first result")
                .containsExactly(
                        ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED, everyByte()),
                        ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED, new byte[] {1}),
                        ClaimResult.acquired());

        OwnerToken late = OwnerToken.random();
        assertThat(store.claim(request("s1-late", late, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("s1-late"), late, timeUnit(), everyByte()))
                .isTrue();
        pause(timeUnit().multipliedBy(2));
        assertThat(store.claim(request("s1-late", OwnerToken.random(), long_())))
                .as("past retention, within grace")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED, everyByte()));
    }

    @Test
    @DisplayName("S1 a record completed without a result, or by a later owner after the old one's grace, carries"
            + " none; a stranger cannot store one")
    void s1_noResultUnlessTheOwnerStoredOne() throws Exception {
        OwnerToken plain = OwnerToken.random();
        assertThat(store.claim(request("s1-plain", plain, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("s1-plain"), plain, long_())).isTrue();
        assertThat(store.claim(request("s1-plain", OwnerToken.random(), long_())))
                .as("completed without a result")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));

        OwnerToken holder = OwnerToken.random();
        assertThat(store.claim(request("s1-stranger", holder, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("s1-stranger"), OwnerToken.random(), long_(), new byte[] {7}))
                .as("complete with a result by a stranger")
                .isFalse();
        assertThat(store.complete(key("s1-absent"), OwnerToken.random(), long_(), new byte[] {7}))
                .as("complete with a result of an absent key")
                .isFalse();
        assertThat(store.claim(request("s1-stranger", OwnerToken.random(), long_())))
                .as("the holder's lease is untouched")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("s1-stranger"), holder, long_())).isTrue();
        assertThat(store.claim(request("s1-stranger", OwnerToken.random(), long_())))
                .as("the stranger's result was not kept")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));

        Duration unit = timeUnit();
        InboxStore quick = storeWithGrace(unit);
        OwnerToken old = OwnerToken.random();
        assertThat(quick.claim(request("s1-reused", old, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(quick.complete(key("s1-reused"), old, unit, everyByte())).isTrue();
        pause(unit.multipliedBy(3));
        OwnerToken next = OwnerToken.random();
        assertThat(quick.claim(request("s1-reused", next, long_())))
                .as("past retention + grace the key is absent")
                .isEqualTo(ClaimResult.acquired());
        assertThat(quick.complete(key("s1-reused"), next, long_())).isTrue();
        assertThat(quick.claim(request("s1-reused", OwnerToken.random(), long_())))
                .as("the new record does not carry the old record's result")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    @DisplayName("S1 handleReturning answers a duplicate with the first delivery's result and runs the work once")
    void s1_handleReturning() {
        Inbox inbox = Inbox.builder(store).consumer(consumer).lease(long_()).build();
        List<String> ran = new ArrayList<>();
        Reply<String> first = inbox.handleReturning("hr-1", ResultCodec.utf8(), () -> {
            ran.add("hr-1");
            return "receipt-ü-" + ran.size();
        });
        Reply<String> again = inbox.handleReturning("hr-1", ResultCodec.utf8(), () -> {
            ran.add("hr-1 again");
            return "another receipt";
        });
        assertThat(ran).as("the work ran once").containsExactly("hr-1");
        assertThat(first.outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(first.value()).isEqualTo("receipt-ü-1");
        assertThat(again.outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(again.value()).as("the duplicate's reply").isEqualTo("receipt-ü-1");

        Reply<byte[]> none = inbox.handleReturning("hr-null", ResultCodec.bytes(), () -> null);
        assertThat(none.value()).isNull();
        assertThat(inbox.handleReturning("hr-null", ResultCodec.bytes(), () -> new byte[] {1})
                        .result())
                .as("a work that returned null kept no result")
                .isEmpty();

        assertThatThrownBy(() -> inbox.handleReturning(
                        "hr-big", ResultCodec.bytes(), () -> new byte[store.maxResultBytes() + 1]))
                .as("a result over the store's limit fails like the work would")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(inbox.handleReturning("hr-big", ResultCodec.bytes(), () -> new byte[] {9})
                        .value())
                .as("the claim was released, so the next delivery runs the work")
                .containsExactly(9);
    }

    @Test
    @DisplayName("S2 a result over the store's limit is rejected before any I/O, and the record is not completed")
    void s2_resultOverTheLimitIsRejected() {
        int limit = store.maxResultBytes();
        assertThat(limit).as("maxResultBytes() of a store that keeps results").isPositive();
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("s2", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertThatThrownBy(() -> store.complete(key("s2"), owner, long_(), new byte[limit + 1]))
                .as("a result one byte over the limit")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(limit));
        assertIllegal(s -> s.complete(key("s2"), owner, long_(), null));
        assertIllegal(s -> s.complete(null, owner, long_(), new byte[1]));
        assertIllegal(s -> s.complete(key("s2"), null, long_(), new byte[1]));
        assertIllegal(s -> s.complete(key("s2"), owner, Duration.ZERO, new byte[1]));
        assertThat(store.claim(request("s2", OwnerToken.random(), long_())))
                .as("the record is still the owner's lease")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("s2"), owner, long_(), new byte[limit]))
                .as("the owner then completes with a result that fits")
                .isTrue();
    }

    // -------------------------------------------------------------------------------- renewal

    @Test
    @DisplayName("H1 renew by the current owner extends the lease: a claim after the original lease is BUSY")
    void h1_renewByOwnerExtendsTheLease() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("h1", owner, timeUnit()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.renew(key("h1"), owner, long_()))
                .as("renew by the owner inside its lease")
                .isTrue();
        pause(timeUnit().multipliedBy(2));
        assertThat(store.claim(request("h1", OwnerToken.random(), long_())))
                .as("a claim after the original lease ended but inside the renewed one")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.renew(key("h1"), owner, long_())).as("renewing again").isTrue();
        assertThat(store.complete(key("h1"), owner, long_()))
                .as("the owner still completes")
                .isTrue();
        assertThat(store.claim(request("h1", OwnerToken.random(), long_())).status())
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);

        OwnerToken late = OwnerToken.random();
        assertThat(store.claim(request("h1-late", late, timeUnit()))).isEqualTo(ClaimResult.acquired());
        pause(timeUnit().multipliedBy(2));
        assertThat(store.renew(key("h1-late"), late, long_()))
                .as("renew by the owner after its lease ended, before anyone took the key over")
                .isTrue();
        assertThat(store.claim(request("h1-late", OwnerToken.random(), long_())))
                .as("the renewed lease is live again")
                .isEqualTo(ClaimResult.busy());
    }

    @Test
    @DisplayName("H2 renew by another owner, after a takeover, or of a COMPLETED record fails and changes nothing")
    void h2_renewByStrangerOrAfterTakeoverOrCompletionFails() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("h2", owner, timeUnit()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.renew(key("h2"), OwnerToken.random(), long_()))
                .as("renew by a stranger")
                .isFalse();
        pause(timeUnit().multipliedBy(2));
        OwnerToken next = OwnerToken.random();
        assertThat(store.claim(request("h2", next, long_())))
                .as("the stranger's renewal did not extend the owner's lease")
                .isEqualTo(ClaimResult.takenOver());
        assertThat(store.renew(key("h2"), owner, long_()))
                .as("renew by the old owner after the takeover")
                .isFalse();
        assertThat(store.complete(key("h2"), owner, long_()))
                .as("nor does the old owner complete")
                .isFalse();
        assertThat(store.claim(request("h2", OwnerToken.random(), long_())))
                .as("the new owner still holds the key")
                .isEqualTo(ClaimResult.busy());

        assertThat(store.complete(key("h2"), next, timeUnit())).isTrue();
        assertThat(store.renew(key("h2"), next, long_()))
                .as("renew of a COMPLETED record by its owner")
                .isFalse();
        assertThat(store.claim(request("h2", OwnerToken.random(), long_())).status())
                .as("the record is still COMPLETED")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);

        OwnerToken released = OwnerToken.random();
        assertThat(store.claim(request("h2-released", released, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.release(key("h2-released"), released)).isTrue();
        assertThat(store.renew(key("h2-released"), released, long_()))
                .as("renew after release")
                .isFalse();
        assertThat(store.renew(key("h2-absent"), OwnerToken.random(), long_()))
                .as("renew of an absent key")
                .isFalse();
        assertThat(store.claim(request("h2-absent", OwnerToken.random(), timeUnit())))
                .as("nothing was created by the failed renewals")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("h2-released", OwnerToken.random(), timeUnit())))
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("R1 past retention but before removal, a claim is DUPLICATE flagged late")
    void r1_lateDuplicate() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("r1", owner, long_()).withFingerprint("fp")))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("r1"), owner, timeUnit())).isTrue();
        assertThat(store.claim(request("r1", OwnerToken.random(), long_())))
                .as("within retention")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        pause(timeUnit().multipliedBy(2));
        assertThat(store.claim(request("r1", OwnerToken.random(), long_()).withFingerprint("fp")))
                .as("past retention, within grace")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.MATCH));
    }

    @Test
    @DisplayName("R1 every DUPLICATE reports how long past its record's retention it came: negative within it,"
            + " positive when late, in claim and claimAll")
    void r1_duplicatesReportTheirTimePastRetention() {
        Duration unit = timeUnit();
        OwnerToken kept = OwnerToken.random();
        assertThat(store.claim(request("r1-kept", kept, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("r1-kept"), kept, long_())).isTrue();
        OwnerToken late = OwnerToken.random();
        assertThat(store.claim(request("r1-past", late, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("r1-past"), late, unit)).isTrue();
        pause(unit.multipliedBy(3));
        List<ClaimResult> answers = new ArrayList<>();
        answers.add(store.claim(request("r1-kept", OwnerToken.random(), long_())));
        answers.add(store.claim(request("r1-past", OwnerToken.random(), long_())));
        answers.addAll(store.claimAll(List.of(
                request("r1-kept", OwnerToken.random(), long_()), request("r1-past", OwnerToken.random(), long_()))));
        for (int i = 0; i < answers.size(); i++) {
            ClaimResult answer = answers.get(i);
            String what = (i % 2 == 0 ? "r1-kept" : "r1-past") + (i < 2 ? " by claim" : " by claimAll");
            assertThat(answer.pastRetention())
                    .as("%s: %s reports its time past retention", what, answer)
                    .isNotNull();
            if (i % 2 == 0) {
                assertThat(answer.isLate()).as(what).isFalse();
                assertThat(answer.pastRetention())
                        .as("%s, within a retention of %s", what, long_())
                        .isNegative()
                        .isGreaterThanOrEqualTo(long_().negated());
            } else {
                assertThat(answer.isLate()).as(what).isTrue();
                assertThat(answer.pastRetention())
                        .as("%s, %s after a retention of %s ended", what, unit.multipliedBy(2), unit)
                        .isBetween(unit, unit.multipliedBy(3).plusSeconds(10));
            }
        }
    }

    @Test
    @DisplayName("R2 purge removes exactly what is past expiry + grace and returns the count")
    void r2_purgeRemovesWhatIsPastGrace() throws Exception {
        Duration unit = timeUnit();
        Duration grace = unit.multipliedBy(4);
        InboxStore store = createEmptyStore(grace);
        created.add(store);
        String[] expiredCompleted = {"r2-done-1", "r2-done-2", "r2-done-3"};
        for (String id : expiredCompleted) {
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(request(id, owner, long_()))).isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(key(id), owner, unit)).isTrue();
        }
        assertThat(store.claim(request("r2-lease", OwnerToken.random(), unit))).isEqualTo(ClaimResult.acquired());
        OwnerToken kept = OwnerToken.random();
        assertThat(store.claim(request("r2-kept-done", kept, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("r2-kept-done"), kept, long_())).isTrue();
        assertThat(store.claim(request("r2-kept-lease", OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
        // Written last; expired when purge runs (after 6 units), inside its grace until 8 units.
        OwnerToken late = OwnerToken.random();
        assertThat(store.claim(request("r2-in-grace", late, long_()).withFingerprint("fp")))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("r2-in-grace"), late, grace)).isTrue();

        pause(unit.multipliedBy(6));
        long removed = store.purge();
        assertThat(store.claim(
                        request("r2-in-grace", OwnerToken.random(), long_()).withFingerprint("fp")))
                .as("a record past expiry but inside its grace survives purge and answers a late DUPLICATE")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.MATCH));
        if (purgeRemovesAllExpired()) {
            assertThat(removed)
                    .as("records past expiry + grace removed by purge")
                    .isEqualTo(4);
            assertThat(store.purge()).as("a second purge finds nothing").isZero();
        } else {
            assertThat(removed)
                    .as("records removed by purge (the rest expire natively); never one inside its grace")
                    .isBetween(0L, 4L);
        }
        for (String id : expiredCompleted) {
            assertThat(store.claim(request(id, OwnerToken.random(), long_())).isAcquired())
                    .as("%s past expiry + grace counts as absent", id)
                    .isTrue();
        }
        assertThat(store.claim(request("r2-lease", OwnerToken.random(), long_()))
                        .isAcquired())
                .isTrue();
        assertThat(store.claim(request("r2-kept-done", OwnerToken.random(), long_()))
                        .status())
                .as("a record within retention is kept")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.claim(request("r2-kept-lease", OwnerToken.random(), long_())))
                .as("a live lease is kept")
                .isEqualTo(ClaimResult.busy());
    }

    @Test
    @DisplayName("R3 grace is the record's: an instance with a shorter grace neither purges nor takes a record"
            + " inside the grace of the instance that wrote it")
    void r3_graceBelongsToTheRecord() throws Exception {
        Duration unit = timeUnit();
        InboxStore writer = storeWithGrace(long_());
        InboxStore impatient = storeWithGrace(unit);
        OwnerToken done = OwnerToken.random();
        assertThat(writer.claim(request("r3-done", done, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(writer.complete(key("r3-done"), done, unit)).isTrue();
        assertThat(writer.claim(request("r3-lease", OwnerToken.random(), unit))).isEqualTo(ClaimResult.acquired());
        OwnerToken shortLived = OwnerToken.random();
        assertThat(impatient.claim(request("r3-short", shortLived, long_()))).isEqualTo(ClaimResult.acquired());
        assertThat(impatient.complete(key("r3-short"), shortLived, unit)).isTrue();
        pause(unit.multipliedBy(3));

        impatient.purge();
        writer.purge();
        assertThat(writer.claim(request("r3-done", OwnerToken.random(), long_())))
                .as("a record inside its writer's grace, after both instances purged")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED));
        if (sharesRecords(writer, impatient)) {
            assertThat(impatient.claim(request("r3-done", OwnerToken.random(), long_())))
                    .as("the same record, claimed through the instance with the shorter grace")
                    .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED));
            assertThat(writer.claim(request("r3-short", OwnerToken.random(), long_())))
                    .as("a record past its own writer's grace counts as absent everywhere")
                    .isEqualTo(ClaimResult.acquired());
        }
        assertThat(writer.claim(request("r3-lease", OwnerToken.random(), long_())))
                .as("an expired lease inside its grace is taken over")
                .isEqualTo(ClaimResult.takenOver());
    }

    /**
     * True when {@code a} and {@code b} see each other's records (one table, one server), false
     * for instances that keep records of their own (in memory): a live lease through {@code a}
     * makes {@code b} answer BUSY only when they share.
     */
    private boolean sharesRecords(InboxStore a, InboxStore b) {
        String id = "share-probe-" + java.util.UUID.randomUUID();
        assertThat(a.claim(request(id, OwnerToken.random(), long_()))).isEqualTo(ClaimResult.acquired());
        return b.claim(request(id, OwnerToken.random(), long_())).equals(ClaimResult.busy());
    }

    // ----------------------------------------------------------------------------------- batches

    @Test
    @DisplayName("B1 claimAll equals claiming each key in order")
    void b1_claimAllEqualsClaimingInOrder() {
        claimAndComplete("b1-done", OwnerToken.random());
        assertThat(store.claim(request("b1-held", OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
        OwnerToken owner = OwnerToken.random();
        List<ClaimResult> results = store.claimAll(List.of(
                request("b1-new", owner, long_()),
                request("b1-done", owner, long_()),
                request("b1-held", owner, long_()),
                request("b1-new", owner, long_()),
                request("b1-other", owner, long_())));
        assertThat(results)
                .as("new, completed, held by another, repeated, new")
                .containsExactly(
                        ClaimResult.acquired(),
                        ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED),
                        ClaimResult.busy(),
                        ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED),
                        ClaimResult.acquired());
        assertThat(store.claim(request("b1-new", OwnerToken.random(), long_())))
                .as("the batch's claim holds a lease")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key("b1-other"), owner, long_())).isTrue();
    }

    @Test
    @DisplayName("B1 claimAll of an empty batch returns no results")
    void b1_emptyBatch() {
        assertThat(store.claimAll(List.of())).isEmpty();
    }

    @Test
    @DisplayName("B1 claimAll repeated keys compare fingerprints with the first occurrence")
    void b1_repeatedKeyFingerprints() {
        OwnerToken owner = OwnerToken.random();
        List<ClaimResult> results = store.claimAll(List.of(
                request("b1-fp", owner, long_()).withFingerprint("one"),
                request("b1-fp", owner, long_()).withFingerprint("one"),
                request("b1-fp", owner, long_()).withFingerprint("two")));
        assertThat(results)
                .containsExactly(
                        ClaimResult.acquired(),
                        ClaimResult.duplicate(false, FingerprintCheck.MATCH),
                        ClaimResult.duplicate(false, FingerprintCheck.MISMATCH));
    }

    @Test
    @DisplayName("B1 claimAll splits batches larger than one request")
    void b1_largeBatchIsSplit() {
        int size = largeBatchSize();
        OwnerToken owner = OwnerToken.random();
        List<ClaimRequest> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(request("b1-large-" + i, owner, long_()));
        }
        List<ClaimResult> first = store.claimAll(batch);
        assertThat(first).hasSize(size).allMatch(ClaimResult.acquired()::equals);
        for (int i = 0; i < size; i += 97) {
            assertThat(store.complete(key("b1-large-" + i), owner, long_())).isTrue();
        }
        List<ClaimResult> second = store.claimAll(batch.stream()
                .map(r -> ClaimRequest.of(r.key(), OwnerToken.random(), long_()))
                .toList());
        for (int i = 0; i < size; i++) {
            assertThat(second.get(i).status())
                    .as("second batch, key %d", i)
                    .isEqualTo(i % 97 == 0 ? dev.inbox.spi.ClaimStatus.DUPLICATE : dev.inbox.spi.ClaimStatus.BUSY);
        }
    }

    @Test
    @DisplayName("B1 claimAll takes over an expired lease and says so, as a single claim does")
    void b1_batchTakeover() {
        OwnerToken first = OwnerToken.random();
        assertThat(store.claim(request("b1-expired", first, timeUnit()))).isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(request("b1-held", OwnerToken.random(), long_())))
                .isEqualTo(ClaimResult.acquired());
        pause(timeUnit().multipliedBy(2));
        List<ClaimResult> results = store.claimAll(List.of(
                request("b1-expired", OwnerToken.random(), long_()),
                request("b1-held", OwnerToken.random(), long_()),
                request("b1-fresh", OwnerToken.random(), long_())));
        assertThat(results)
                .as("an expired lease, a live one and a fresh key, in one batch")
                .containsExactly(ClaimResult.takenOver(), ClaimResult.busy(), ClaimResult.acquired());
        assertThat(store.complete(key("b1-expired"), first, long_()))
                .as("the old owner after the batch took its lease over")
                .isFalse();
    }

    @Test
    @DisplayName("B1 a batch slower than its lease gives every key its whole lease, from when that key was claimed")
    void b1_batchSlowerThanItsLease() {
        int size = largeBatchSize();
        List<ClaimRequest> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            // Zero-padded, so that the last key is last whether a store claims in the given order
            // or sorted (as BatchClaims does).
            batch.add(request(String.format("b1-slow-%06d", i), OwnerToken.random(), timeUnit()));
        }
        assertThat(store.claimAll(batch)).hasSize(size).allMatch(ClaimResult.acquired()::equals);
        assertThat(store.claim(request(String.format("b1-slow-%06d", size - 1), OwnerToken.random(), long_())))
                .as("the batch's last key, claimed by another owner right after the batch returned")
                .isEqualTo(ClaimResult.busy());
    }

    // ------------------------------------------------------------------------------- bad input

    @Test
    @DisplayName("E1 null arguments fail with IllegalArgumentException")
    void e1_nullArguments() {
        OwnerToken owner = OwnerToken.random();
        assertIllegal(s -> s.claim(null));
        assertIllegal(s -> s.claimAll(null));
        assertIllegal(s -> s.complete(null, owner, long_()));
        assertIllegal(s -> s.complete(key("e1"), null, long_()));
        assertIllegal(s -> s.complete(key("e1"), owner, null));
        assertIllegal(s -> s.release(null, owner));
        assertIllegal(s -> s.release(key("e1"), null));
        assertIllegal(s -> s.renew(null, owner, long_()));
        assertIllegal(s -> s.renew(key("e1"), null, long_()));
        assertIllegal(s -> s.renew(key("e1"), owner, null));
        assertIllegal(s -> s.renew(key("e1"), owner, Duration.ZERO));
        assertIllegal(s -> s.completeAll(null, long_()));
        assertIllegal(s -> s.completeAll(Arrays.asList(new HeldKey(key("e1"), owner), null), long_()));
        assertIllegal(s -> s.completeAll(List.of(new HeldKey(key("e1"), owner)), Duration.ZERO));
    }

    @Test
    @DisplayName("E1 non-positive retention fails before anything is written")
    void e1_nonPositiveRetention() {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(request("e1-retention", owner, long_()))).isEqualTo(ClaimResult.acquired());
        assertIllegal(s -> s.complete(key("e1-retention"), owner, Duration.ZERO));
        assertIllegal(s -> s.complete(key("e1-retention"), owner, Duration.ofMillis(-1)));
        assertThat(store.claim(request("e1-retention", OwnerToken.random(), long_())))
                .as("the record was not completed by the rejected calls")
                .isEqualTo(ClaimResult.busy());
    }

    @Test
    @DisplayName("E1 a batch with a null element fails before any key is claimed")
    void e1_batchWithNullElement() {
        List<ClaimRequest> batch = Arrays.asList(request("e1-batch", OwnerToken.random(), long_()), null);
        assertIllegal(s -> s.claimAll(batch));
        assertThat(store.claim(request("e1-batch", OwnerToken.random(), long_())))
                .as("the valid element was not claimed")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("E1 invalid keys, owners and leases are rejected when built")
    void e1_invalidValuesAreRejected() {
        assertThatThrownBy(() -> InboxKey.of(consumer, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxKey.of(consumer, "x".repeat(513))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxKey.of("", "id")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClaimRequest.of(key("id"), OwnerToken.random(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------- lifecycle

    @Test
    @DisplayName("L1 operations after close fail with IllegalStateException")
    void l1_operationsAfterCloseFail() throws Exception {
        InboxStore closing = storeWithGrace(defaultGrace());
        OwnerToken owner = OwnerToken.random();
        closing.close();
        closing.close();
        assertThatThrownBy(() -> closing.claim(request("l1", owner, long_())))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> closing.claimAll(List.of(request("l1", owner, long_()))))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> closing.complete(key("l1"), owner, long_())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> closing.release(key("l1"), owner)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(closing::purge).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("L1 admin operations after close fail with IllegalStateException")
    void l1_adminOperationsAfterCloseFail() throws Exception {
        InboxStore closing = storeWithGrace(defaultGrace());
        dev.inbox.spi.InboxAdmin admin = closing.admin();
        closing.close();
        assertThatThrownBy(() -> admin.inspect(key("l1"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> admin.stuck(dev.inbox.spi.StuckQuery.of(consumer)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> admin.count(consumer)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> admin.releaseLease(key("l1"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> admin.forget(key("l1"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> closing.admin().inspect(key("l1"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("L1 schema creation is idempotent and keeps existing records")
    void l1_schemaCreationIsIdempotent() throws Exception {
        claimAndComplete("l1-kept", OwnerToken.random());
        createSchema(store);
        createSchema(store);
        assertThat(store.claim(request("l1-kept", OwnerToken.random(), long_())).status())
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        assertThat(store.claim(request("l1-new", OwnerToken.random(), long_()))).isEqualTo(ClaimResult.acquired());
    }

    // --------------------------------------------------------------------------------- helpers

    /** What rules M1 to M7 ({@link InboxAdminRules}) need: this test's store, consumer and times. */
    @Override
    public final Fixture adminFixture() {
        return new Fixture() {
            @Override
            public InboxStore store() {
                return store;
            }

            @Override
            public String consumer() {
                return consumer;
            }

            @Override
            public Duration timeUnit() {
                return InboxStoreContract.this.timeUnit();
            }

            @Override
            public Duration grace() {
                return defaultGrace();
            }

            @Override
            public InboxStore storeWithGrace(Duration grace) throws Exception {
                return InboxStoreContract.this.storeWithGrace(grace);
            }
        };
    }

    /** This test's key for {@code id}. */
    protected final InboxKey key(String id) {
        return InboxKey.of(consumer, id);
    }

    /** A claim of this test's key {@code id}. */
    protected final ClaimRequest request(String id, OwnerToken owner, Duration lease) {
        return ClaimRequest.of(key(id), owner, lease);
    }

    /** A duration no test outlives. */
    protected final Duration long_() {
        return Duration.ofMinutes(10);
    }

    private void claimAndComplete(String id, OwnerToken owner) {
        assertThat(store.claim(request(id, owner, long_())))
                .as("claim of %s", describe(id))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key(id), owner, long_()))
                .as("complete of %s", describe(id))
                .isTrue();
    }

    private void assertIllegal(Consumer<InboxStore> call) {
        assertThatThrownBy(() -> call.accept(store)).isInstanceOf(IllegalArgumentException.class);
    }

    private static String describe(String id) {
        StringBuilder out = new StringBuilder("\"");
        int shown = Math.min(id.length(), 24);
        for (int i = 0; i < shown; i++) {
            char c = id.charAt(i);
            out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        out.append(id.length() > shown ? "…\" (" + id.length() + " chars)" : "\"");
        return out.toString();
    }
}
