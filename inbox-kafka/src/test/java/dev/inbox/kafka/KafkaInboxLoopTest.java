package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.FailurePolicy;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.OwnerToken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The lease-mode loop against a real Kafka broker, with the in-memory store. */
class KafkaInboxLoopTest {

    private static final Duration BACKOFF = Duration.ofMillis(200);

    private final String group = "inbox-test-" + UUID.randomUUID();
    private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
    private CaffeineInboxStore store;
    private Inbox inbox;
    private KafkaProducer<String, String> producer;
    private KafkaConsumer<String, String> consumer;
    private String topic;

    @BeforeEach
    void setUp() throws Exception {
        store = CaffeineInboxStore.builder().build();
        inbox = Inbox.builder(store)
                .consumer("kafka-test")
                .lease(Duration.ofSeconds(30))
                .build();
        producer = Kafka.producer();
        consumer = Kafka.consumer(group);
        topic = Kafka.topic(1);
    }

    @AfterEach
    void tearDown() {
        consumer.close();
        producer.close();
        store.close();
    }

    private void apply(ConsumerRecord<String, String> record) {
        applied.computeIfAbsent(record.value(), v -> new AtomicInteger()).incrementAndGet();
    }

    private int applications(String id) {
        AtomicInteger count = applied.get("{\"event\":\"" + id + "\"}");
        return count == null ? 0 : count.get();
    }

    private KafkaInboxLoop.Builder<String, String> loop(RecordHandler<String, String> handler) {
        return KafkaInboxLoop.lease(consumer, inbox, handler)
                .busyBackoff(BACKOFF)
                .failureBackoff(BACKOFF);
    }

    /** Polls until {@code done} holds, at most 30 s. */
    private static void pollUntil(KafkaInboxLoop<?, ?> loop, BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("still waiting after 30 s").isLessThan(deadline);
            loop.pollOnce(Duration.ofMillis(100));
        }
    }

    private long committed() {
        return Kafka.committed(group, topic, 0);
    }

    /** Applies each record, except e6 the first time: its handler throws an {@link AssertionError}. */
    private RecordHandler<String, String> failingOnceOnE6(AtomicInteger sixth) {
        return record -> {
            if (record.value().contains("\"e6\"") && sixth.getAndIncrement() == 0) {
                throw new AssertionError("the handler fails once, with an Error");
            }
            apply(record);
        };
    }

    /**
     * Polls until {@code done} holds (at most 30 s), catching what the loop throws as a long-running
     * consumer loop does, and keeps polling; returns how many times it threw.
     */
    private static int pollCatchingErrors(KafkaInboxLoop<?, ?> loop, BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int errors = 0;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                loop.pollOnce(Duration.ofMillis(100));
            } catch (AssertionError e) {
                errors++;
            }
        }
        return errors;
    }

    @Test
    void anErrorMidPoll_caughtByTheCaller_losesNothing() throws Exception {
        for (int i = 1; i <= 10; i++) {
            Kafka.sendEvent(producer, topic, 0, "e" + i);
        }
        AtomicInteger sixth = new AtomicInteger();
        KafkaInboxLoop<String, String> loop = loop(failingOnceOnE6(sixth)).build();
        loop.subscribe(List.of(topic));
        assertThat(pollCatchingErrors(loop, () -> applied.size() == 10)).isEqualTo(1);
        for (int i = 1; i <= 10; i++) {
            assertThat(applications("e" + i)).as("e%s applied", i).isEqualTo(1);
        }
        pollUntil(loop, () -> committed() == 10);
    }

    @Test
    void aDuplicateIsSkippedAndItsOffsetCommitted() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, "b");
        Kafka.sendEvent(producer, topic, 0, "a"); // the producer's re-send, at a new offset
        KafkaInboxLoop<String, String> loop = loop(this::apply).build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> loop.counts().processed() + loop.counts().duplicates() == 3);
        assertThat(applications("a")).isEqualTo(1);
        assertThat(applications("b")).isEqualTo(1);
        assertThat(loop.counts().duplicates()).isEqualTo(1);
        assertThat(committed())
                .as("the duplicate's offset is committed too (spring-kafka #2372)")
                .isEqualTo(3);
    }

    @Test
    void aBusyRecordStopsItsPartitionUntilTheOtherAttemptEnds_thenIsApplied() throws Exception {
        InboxKey b = InboxKey.of("kafka-test", DedupKeys.cloudEvent("/tests", "b"));
        OwnerToken other = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(b, other, Duration.ofMinutes(5))))
                .isEqualTo(ClaimResult.acquired());
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, "b");
        Kafka.sendEvent(producer, topic, 0, "c");
        KafkaInboxLoop<String, String> loop = loop(this::apply).build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> loop.counts().busy() >= 1);
        assertThat(applications("a")).isEqualTo(1);
        assertThat(applications("c"))
                .as("after a BUSY record its partition stops: order kept")
                .isZero();
        assertThat(committed()).as("nothing committed past the BUSY record").isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            loop.pollOnce(Duration.ofMillis(100)); // still busy: retried, never committed past
        }
        assertThat(committed()).isEqualTo(1);
        // The other attempt fails and releases: the event must still be applied, by us.
        assertThat(store.release(b, other)).isTrue();
        pollUntil(loop, () -> applications("c") == 1);
        assertThat(applications("b")).isEqualTo(1);
        assertThat(committed()).isEqualTo(3);
        assertThat(store.claim(ClaimRequest.of(
                                InboxKey.of("kafka-test", DedupKeys.cloudEvent("/tests", "c")),
                                OwnerToken.random(),
                                Duration.ofMinutes(1)))
                        .status())
                .as("c, claimed and released while b was busy, then applied and completed")
                .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
    }

    @Test
    void aFailingHandlerIsRetriedAndNothingPastItIsCommitted() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, "b");
        Kafka.sendEvent(producer, topic, 0, "c");
        AtomicInteger failuresLeft = new AtomicInteger(2);
        KafkaInboxLoop<String, String> loop = loop(record -> {
                    if (record.value().contains("\"b\"") && failuresLeft.getAndDecrement() > 0) {
                        throw new IllegalStateException("b fails twice");
                    }
                    apply(record);
                })
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> loop.counts().failed() == 1);
        assertThat(committed()).isEqualTo(1);
        assertThat(applications("c")).isZero();
        pollUntil(loop, () -> applications("c") == 1);
        assertThat(applications("a")).isEqualTo(1);
        assertThat(applications("b")).isEqualTo(1);
        assertThat(loop.counts().failed()).isEqualTo(2);
        assertThat(committed()).isEqualTo(3);
    }

    /**
     * A copy older than the window the keys admit (by the record's timestamp) is EXPIRED: handled as
     * a record without a usable key — the missing-key recoverer takes it, unapplied (without one the
     * loop stops at it) — while a fresh one is applied.
     */
    @Test
    void aCopyOlderThanTheWindow_isExpired_andGoesToTheMissingKeyRecoverer_neverApplied() throws Exception {
        ProducerRecord<String, String> old = new ProducerRecord<>(
                topic, 0, System.currentTimeMillis() - Duration.ofHours(2).toMillis(), null, "{\"event\":\"old\"}");
        old.headers().add("ce_id", "old".getBytes(StandardCharsets.UTF_8));
        old.headers().add("ce_source", "/tests".getBytes(StandardCharsets.UTF_8));
        producer.send(old).get(30, TimeUnit.SECONDS);
        Kafka.sendEvent(producer, topic, 0, "fresh");
        List<String> deadLetters = new CopyOnWriteArrayList<>();
        KafkaInboxLoop<String, String> loop = loop(this::apply)
                .keys(RecordKeys.cloudEvents().refusingCopiesOlderThan(Duration.ofHours(1)))
                .onMissingKey((record, failure) -> deadLetters.add(record.value() + " " + failure.getMessage()))
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> applications("fresh") == 1);
        assertThat(applications("old")).isZero();
        assertThat(deadLetters)
                .singleElement()
                .asString()
                .startsWith("{\"event\":\"old\"}")
                .contains("EXPIRED");
        assertThat(committed()).isEqualTo(2);
    }

    @Test
    void aRecovererTakesARecordOnceTheFailurePolicyGivesUp_andItsOffsetIsCommitted() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, "b");
        List<String> deadLetters = new CopyOnWriteArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        KafkaInboxLoop<String, String> loop = loop(record -> {
                    if (record.value().contains("\"a\"")) {
                        attempts.incrementAndGet();
                        throw new IllegalStateException("poison");
                    }
                    apply(record);
                })
                .recoverer((record, failure) -> deadLetters.add(record.value() + " " + failure.getMessage()))
                .failurePolicy(FailurePolicy.attempts(3, BACKOFF))
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> applications("b") == 1);
        assertThat(attempts).as("attempts of the poison record").hasValue(3);
        assertThat(loop.counts().failed()).isEqualTo(2);
        assertThat(deadLetters).containsExactly("{\"event\":\"a\"} poison");
        assertThat(committed()).isEqualTo(2);
        assertThat(store.claim(ClaimRequest.of(
                        InboxKey.of("kafka-test", DedupKeys.cloudEvent("/tests", "a")),
                        OwnerToken.random(),
                        Duration.ofMinutes(1))))
                .as("the failed event's claim was released, not completed")
                .isEqualTo(ClaimResult.acquired());
    }

    /**
     * A failure that passes (a database restart, a timeout) is retried, by default ten times, before
     * the recoverer gets the record: it used to get it at the first failure, dead-lettering an event
     * that the next attempt would have applied.
     */
    @Test
    void aTransientFailure_isRetriedBeforeTheRecoverer_andTheEventIsApplied() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "a");
        List<String> deadLetters = new CopyOnWriteArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        KafkaInboxLoop<String, String> loop = loop(record -> {
                    if (attempts.incrementAndGet() <= 2) {
                        throw new IllegalStateException("transient");
                    }
                    apply(record);
                })
                .recoverer((record, failure) -> deadLetters.add(record.value()))
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> applications("a") == 1 || !deadLetters.isEmpty());
        assertThat(deadLetters).as("dead-lettered").isEmpty();
        assertThat(applications("a")).isEqualTo(1);
        assertThat(attempts).hasValue(3);
        pollUntil(loop, () -> committed() == 1);
    }

    @Test
    void aRecordWithoutKeyFailsThePollLoudly_andNothingOfItIsApplied() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, null);
        KafkaInboxLoop<String, String> loop = loop(this::apply).build();
        loop.subscribe(List.of(topic));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        IllegalStateException thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            try {
                loop.pollOnce(Duration.ofMillis(100));
            } catch (IllegalStateException e) {
                thrown = e;
            }
        }
        assertThat(thrown).isNotNull();
        assertThat(thrown.getMessage()).contains(topic + "-0@1", "no dedup key", "onMissingKey");
        assertThat(applied).as("nothing of the poll applied").isEmpty();
        assertThat(committed()).isEqualTo(-1);
        assertThat(loop.pollOnce(Duration.ZERO))
                .as("its partitions wait for the failure backoff: no spin at poll speed")
                .isZero();
        Thread.sleep(BACKOFF.toMillis());
        assertThatThrownBy(() -> loop.pollOnce(Duration.ofSeconds(5)))
                .as("polled again from the same place after the backoff, it fails again")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRecordWithoutKeyGoesToTheMissingKeyRecoverer() throws Exception {
        Kafka.sendEvent(producer, topic, 0, null);
        Kafka.sendEvent(producer, topic, 0, "a");
        List<String> parked = new CopyOnWriteArrayList<>();
        List<dev.inbox.DeliveryOutcome> reported = new CopyOnWriteArrayList<>();
        inbox = Inbox.builder(store)
                .consumer("kafka-test")
                .metrics(new dev.inbox.InboxMetrics() {
                    @Override
                    public void delivered(String consumer, dev.inbox.DeliveryOutcome outcome) {
                        reported.add(outcome);
                    }
                })
                .build();
        KafkaInboxLoop<String, String> loop = loop(this::apply)
                .onMissingKey((record, why) -> parked.add(why.getMessage()))
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> applications("a") == 1);
        assertThat(parked).singleElement().asString().contains("no dedup key");
        assertThat(committed()).isEqualTo(2);
        assertThat(reported)
                .as("each record's outcome, reported to InboxMetrics.delivered")
                .containsExactly(dev.inbox.DeliveryOutcome.DEAD_LETTERED, dev.inbox.DeliveryOutcome.PROCESSED);
        assertThat(loop.counts().deadLettered()).isEqualTo(1);
    }

    @Test
    void aStoreThatCannotAnswerAppliesAndCommitsNothing_thenThePollIsRetried() throws Exception {
        WatchedStore flaky = new WatchedStore();
        flaky.claimAllOutages.set(2);
        inbox = Inbox.builder(flaky).consumer("kafka-test").claimAttempts(1).build();
        Kafka.sendEvent(producer, topic, 0, "a");
        Kafka.sendEvent(producer, topic, 0, "b");
        KafkaInboxLoop<String, String> loop = loop(this::apply).build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> loop.counts().storeFailures() >= 1);
        assertThat(applied).isEmpty();
        assertThat(committed()).isEqualTo(-1);
        pollUntil(loop, () -> applications("b") == 1);
        assertThat(applications("a")).isEqualTo(1);
        assertThat(loop.counts().storeFailures())
                .as("records of the two polls the store could not claim")
                .isBetween(2L, 4L);
        assertThat(committed()).isEqualTo(2);
    }

    /**
     * The in-memory store, watched: it counts completions one by one and together, and fails the
     * next {@code claimAllOutages} batch claims as a store that cannot be reached.
     */
    private final class WatchedStore extends ForwardingStore {
        final AtomicInteger claimAllOutages = new AtomicInteger();
        final AtomicInteger single = new AtomicInteger();
        final AtomicInteger together = new AtomicInteger();

        WatchedStore() {
            super(store);
        }

        @Override
        public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
            if (claimAllOutages.getAndDecrement() > 0) {
                throw new InboxStoreException("store down", null, true);
            }
            return super.claimAll(requests);
        }

        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            single.incrementAndGet();
            return super.complete(key, owner, retention);
        }

        @Override
        public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
            together.incrementAndGet();
            return super.completeAll(held, retention);
        }
    }

    @Test
    void completePerPoll_holdsAPollsClaimsUntilItsEnd_thenCompletesThemInOneCall() throws Exception {
        WatchedStore watched = new WatchedStore();
        inbox = Inbox.builder(watched)
                .consumer("kafka-test")
                .lease(Duration.ofSeconds(30))
                .build();
        for (int i = 1; i <= 10; i++) {
            Kafka.sendEvent(producer, topic, 0, "e" + i);
        }
        Map<String, ClaimStatus> firstSeenLater = new ConcurrentHashMap<>();
        KafkaInboxLoop<String, String> loop = loop(record -> {
                    apply(record);
                    if (record.value().contains("\"e10\"")) {
                        // Another delivery of e1, while the poll that applied it is still running.
                        firstSeenLater.put(
                                "e1",
                                inbox.claims().claim(DedupKeys.eventId("e1")).status());
                    }
                })
                .keys(RecordKeys.header("ce_id"))
                .completePerPoll()
                .build();
        loop.subscribe(List.of(topic));
        pollUntil(loop, () -> committed() == 10);
        for (int i = 1; i <= 10; i++) {
            assertThat(applications("e" + i)).as("e%s applied", i).isEqualTo(1);
            assertThat(inbox.claims().claim(DedupKeys.eventId("e" + i)).status())
                    .as("e%s after its poll", i)
                    .isEqualTo(ClaimStatus.DUPLICATE);
        }
        if (firstSeenLater.containsKey("e1")) { // e1 and e10 came in one poll (50 records at most)
            assertThat(firstSeenLater.get("e1"))
                    .as("e1 while its poll ran: held, not yet completed")
                    .isEqualTo(ClaimStatus.BUSY);
        }
        assertThat(watched.single.get()).as("completions one by one").isZero();
        assertThat(watched.together.get())
                .as("completeAll calls: one per poll that applied something")
                .isBetween(1, 10);
        assertThat(loop.counts().processed()).isEqualTo(10);
    }

    @Test
    void completePerPoll_anErrorMidPoll_completesAndCommitsWhatWasDone_andLosesNothing() throws Exception {
        for (int i = 1; i <= 10; i++) {
            Kafka.sendEvent(producer, topic, 0, "e" + i);
        }
        AtomicInteger sixth = new AtomicInteger();
        KafkaInboxLoop<String, String> loop = loop(failingOnceOnE6(sixth))
                .keys(RecordKeys.header("ce_id"))
                .completePerPoll()
                .build();
        loop.subscribe(List.of(topic));
        assertThat(pollCatchingErrors(loop, () -> sixth.get() > 0)).isEqualTo(1);
        int before = applied.size();
        assertThat(before)
                .as("records applied before the Error, in partition order")
                .isEqualTo(5);
        for (int i = 1; i <= before; i++) {
            assertThat(inbox.claims().claim(DedupKeys.eventId("e" + i)).status())
                    .as("e%s, applied before the Error in its poll: completed", i)
                    .isEqualTo(ClaimStatus.DUPLICATE);
        }
        Claim probe = inbox.claims().claim(DedupKeys.eventId("e6"));
        assertThat(probe.status()).as("e6, whose work threw: released").isEqualTo(ClaimStatus.ACQUIRED);
        probe.release();
        pollUntil(loop, () -> committed() == 10 && applied.size() == 10);
        for (int i = 1; i <= 10; i++) {
            assertThat(applications("e" + i)).as("e%s applied", i).isEqualTo(1);
        }
    }

    @Test
    void builderRejectsBadInput() {
        assertThatThrownBy(() -> KafkaInboxLoop.lease(null, inbox, this::apply))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaInboxLoop.lease(consumer, null, this::apply))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaInboxLoop.lease(consumer, inbox, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> loop(this::apply).busyBackoff(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyBackoff");
        assertThatThrownBy(() -> loop(this::apply).keys(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> loop(this::apply).build().pollOnce(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
