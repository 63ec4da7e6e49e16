package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.DeliveryOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.adapter.Outage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The share-group loop's own promises on the real broker: waiting on a BUSY event, and working past
 * the acquisition lock, never raise a record's delivery count (a group at its lowest delivery limit,
 * 2, would archive the record at its second delivery).
 */
class KafkaShareInboxLoopTest {

    private static final Duration LOCK = Duration.ofSeconds(1);

    private static final Map<String, Outage.During> KILLED = Map.of(
            "acknowledge", KafkaShareInboxLoopTest::killed,
            "commitSync", KafkaShareInboxLoopTest::killed,
            "poll", KafkaShareInboxLoopTest::killed);

    private static Object killed(Object[] args) {
        throw new org.apache.kafka.common.errors.WakeupException();
    }

    private final String group = "inbox-share-test-" + UUID.randomUUID();
    private final List<Thread> threads = new ArrayList<>();
    private final List<KafkaShareInboxLoop<String, String>> loops = new CopyOnWriteArrayList<>();
    /** Each handler run: the record's value and the delivery count the broker gave it. */
    private final Map<String, List<Short>> runs = new ConcurrentHashMap<>();
    /** The delivery counts of every attempt at a record (each reads its key), by the record's value. */
    private final Map<String, List<Short>> attempts = new ConcurrentHashMap<>();

    private CaffeineInboxStore store;
    private Inbox inbox;
    private KafkaProducer<String, String> producer;
    private String topic;

    @BeforeEach
    void setUp() throws Exception {
        store = CaffeineInboxStore.builder().build();
        inbox = Inbox.builder(store).consumer("share-test").lease(LOCK).build();
        producer = Kafka.producer();
        topic = Kafka.topic(1);
        Kafka.shareGroup(group, LOCK, 2, true);
    }

    @AfterEach
    void tearDown() throws Exception {
        loops.forEach(KafkaShareInboxLoop::stop);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        producer.close();
        store.close();
    }

    private void handle(ConsumerRecord<String, String> record, Duration work) throws InterruptedException {
        runs.computeIfAbsent(record.value(), v -> new CopyOnWriteArrayList<>())
                .add(record.deliveryCount().orElse((short) -1));
        Thread.sleep(work.toMillis());
    }

    /** Starts a member that runs each record's work for {@code work}. */
    private void member(Duration work) {
        member(group, work);
    }

    private void member(String group, Duration work) {
        member(group, inbox, work, new Outage());
    }

    /**
     * A member on {@code inbox}; once {@code death} begins, every call of its loop into the consumer
     * throws, as a killed process would make none, and the consumer is closed.
     */
    private void member(String group, Inbox inbox, Duration work, Outage death) {
        Thread thread = new Thread(() -> {
            try (KafkaShareConsumer<String, String> consumer = Kafka.shareConsumer(group);
                    KafkaShareInboxLoop<String, String> loop = KafkaShareInboxLoop.lease(
                                    death.wrap(ShareConsumer.class, consumer, KILLED),
                                    inbox,
                                    record -> handle(record, work))
                            .keys(record -> {
                                attempts.computeIfAbsent((String) record.value(), v -> new CopyOnWriteArrayList<>())
                                        .add(record.deliveryCount().orElse((short) -1));
                                return RecordKeys.header("ce_id").keyOf(record);
                            })
                            .busyBackoff(Duration.ofMillis(100))
                            .build()) {
                loops.add(loop);
                loop.subscribe(List.of(topic));
                loop.run(Duration.ofMillis(100));
            } catch (org.apache.kafka.common.errors.WakeupException killed) {
                // the test's kill: the consumer is closed without another acknowledgement
            }
        });
        threads.add(thread);
        thread.start();
    }

    private long busy() {
        return loops.stream()
                .mapToLong(l -> l.counts().count(DeliveryOutcome.BUSY))
                .sum();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("after 60 s still not: %s", what)
                    .isNegative();
            Thread.sleep(20);
        }
    }

    @Test
    @Tag("extended") // CI and -Pextended: several locks' worth of waiting
    void aBusyEvent_isHeldFarLongerThanTheLock_withoutRaisingItsDeliveryCount_andAppliedOnceItsHolderLetsGo()
            throws Exception {
        // Another process's inbox (an owner of its own) holds the event.
        Claim holder = Inbox.builder(store)
                .consumer("share-test")
                .lease(Duration.ofMinutes(5))
                .build()
                .claims()
                .claim(DedupKeys.eventId("e1"));
        Kafka.sendEvent(producer, topic, 0, "e1");
        member(Duration.ZERO);
        await("a BUSY answer", () -> busy() > 0);
        Thread.sleep(LOCK.multipliedBy(5).toMillis()); // five locks' worth of BUSY answers
        assertThat(busy()).as("BUSY answers over five locks, 100 ms apart").isGreaterThan(20);
        assertThat(runs)
                .as("the handler while another delivery holds the event")
                .isEmpty();
        holder.release();
        await("the event applied once its holder let go", () -> runs.containsKey("{\"event\":\"e1\"}"));
        Thread.sleep(LOCK.toMillis());
        assertThat(runs.get("{\"event\":\"e1\"}"))
                .as("the delivery counts of the runs: one run, of the first delivery (a release or a lapsed lock"
                        + " would have raised it, and the group archives at 2)")
                .containsExactly((short) 1);
        assertThat(attempts.get("{\"event\":\"e1\"}"))
                .as("the delivery counts of its BUSY attempts")
                .containsOnly((short) 1);
    }

    @Tag("extended") // CI and -Pextended; A11 of the share kits
    @Test
    void workLongerThanSeveralLocks_withASecondMember_keepsTheRecord() throws Exception {
        Kafka.sendEvent(producer, topic, 0, "e2");
        member(LOCK.multipliedBy(4));
        await("the work begun", () -> runs.containsKey("{\"event\":\"e2\"}"));
        member(Duration.ZERO);
        Thread.sleep(LOCK.multipliedBy(5).toMillis());
        assertThat(runs.get("{\"event\":\"e2\"}"))
                .as("runs of a record whose work outlasted four locks while a second member polled")
                .containsExactly((short) 1);
        assertThat(attempts.get("{\"event\":\"e2\"}"))
                .as("the delivery counts the record came with: a second means its lock lapsed and the broker"
                        + " handed it to the other member")
                .containsOnly((short) 1);
        assertThat(inbox.claims().claim(DedupKeys.eventId("e2")).status())
                .as("the event, recorded")
                .isEqualTo(ClaimStatus.DUPLICATE);
    }

    @Test
    @Tag("extended") // CI and -Pextended: waits for a lock to lapse
    void withoutRenewals_workLongerThanTheLock_isAppliedOnce_andTheLoopSaysWhichSettingIsMissing() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(KafkaShareInboxLoop.class.getName());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        log.addHandler(capture);
        try {
            String unrenewed = "inbox-share-test-" + UUID.randomUUID();
            Kafka.shareGroup(unrenewed, LOCK, 5, false);
            Kafka.sendEvent(producer, topic, 0, "e3");
            member(unrenewed, LOCK.multipliedBy(3));
            await("the work begun", () -> runs.containsKey("{\"event\":\"e3\"}"));
            member(unrenewed, Duration.ZERO);
            await(
                    "the event recorded",
                    () -> inbox.claims().claim(DedupKeys.eventId("e3")).status() == ClaimStatus.DUPLICATE);
            Thread.sleep(LOCK.toMillis());
            assertThat(runs.get("{\"event\":\"e3\"}")).as("runs of the event").hasSize(1);
            assertThat(warnings)
                    .as("what the loop logged when the broker refused its renewals")
                    .anyMatch(message -> message.contains("share.renew.acknowledge.enable=true"));
        } finally {
            log.removeHandler(capture);
        }
    }

    /** Lease mode claims the records in hand with one store call, and still applies each once. */
    @Tag("extended") // CI and -Pextended: a share group's join (10 s here)
    @Test
    void theRecordsInHand_areClaimedTogether() throws Exception {
        List<Integer> claimAllSizes = new CopyOnWriteArrayList<>();
        AtomicInteger singleClaims = new AtomicInteger();
        InboxStore watched = new ForwardingStore(store) {
            @Override
            public ClaimResult claim(ClaimRequest request) {
                singleClaims.incrementAndGet();
                return super.claim(request);
            }

            @Override
            public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
                claimAllSizes.add(requests.size());
                return super.claimAll(requests);
            }
        };
        for (String event : List.of("t1", "t2", "t3", "t4", "t5", "t3")) {
            Kafka.sendEvent(producer, topic, 0, event);
        }
        member(group, Inbox.builder(watched).consumer("share-test").lease(LOCK).build(), Duration.ZERO, new Outage());
        await(
                "five events applied",
                () -> runs.size() == 5 && loops.get(0).counts().duplicates() == 1);
        assertThat(runs.values()).as("each event applied once").allMatch(counts -> counts.size() == 1);
        assertThat(claimAllSizes)
                .as("claimAll calls, by how many claims each asked for")
                .anyMatch(size -> size > 1);
        assertThat(singleClaims.get())
                .as("records claimed alone, where a poll returned them one by one")
                .isLessThan(6);
    }

    @Test
    void aMemberKilledWhileItsCompletionIsBeingRecorded_acceptedNothing_soTheRecordComesAgain() throws Exception {
        CountDownLatch completing = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        InboxStore halting = new ForwardingStore(store) {
            @Override
            public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
                completing.countDown();
                try {
                    never.await(); // until the killed member's worker is interrupted
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new InboxStoreException("the member died while recording", null, true);
            }
        };
        Outage death = new Outage();
        Kafka.sendEvent(producer, topic, 0, "e4");
        member(group, Inbox.builder(halting).consumer("share-test").lease(LOCK).build(), Duration.ZERO, death);
        assertThat(completing.await(60, TimeUnit.SECONDS))
                .as("the work ran and its completion began")
                .isTrue();
        death.begin(); // killed: its loop's next call into the consumer throws
        member(Duration.ZERO);
        await(
                "the record delivered again",
                () -> attempts.get("{\"event\":\"e4\"}").size() > 1);
        await(
                "the event recorded",
                () -> inbox.claims().claim(DedupKeys.eventId("e4")).status() == ClaimStatus.DUPLICATE);
        assertThat(attempts.get("{\"event\":\"e4\"}"))
                .as("delivery counts: the second delivery came because nothing had accepted the first")
                .contains((short) 2);
    }

    @Test
    void badArguments_failBeforeAnyIo() {
        try (KafkaShareConsumer<String, String> consumer = Kafka.shareConsumer(group)) {
            assertThatThrownBy(() -> KafkaShareInboxLoop.lease(null, inbox, record -> {}))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> KafkaShareInboxLoop.lease(consumer, inbox, record -> {})
                            .busyBackoff(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
            try (KafkaShareInboxLoop<String, String> loop =
                    KafkaShareInboxLoop.lease(consumer, inbox, record -> {}).build()) {
                assertThatThrownBy(() -> loop.pollOnce(Duration.ofMillis(-1)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }
}
