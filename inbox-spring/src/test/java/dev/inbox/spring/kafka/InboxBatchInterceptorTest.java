package dev.inbox.spring.kafka;

import static dev.inbox.spring.kafka.SpringKafka.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/** The batch interceptor in Spring Kafka's own container with a batch listener, against the real broker. */
@Tag("extended") // CI and -Pextended, beside InboxBatchInterceptorKitTest (A1–A14 on the same interceptor)
class InboxBatchInterceptorTest {

    private static final Duration BUSY_BACKOFF = Duration.ofMillis(100);

    @RegisterExtension
    static final Database db = new Database();

    private static InboxBatchInterceptor<String, String> interceptor(SpringInbox inbox) {
        return new InboxBatchInterceptor<>(inbox, RecordKeys.cloudEvents(), BUSY_BACKOFF);
    }

    @Test
    void duplicatesAreLeftOutOfTheBatch_andCommittedWithIt() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxBatchInterceptor<String, String> interceptor = interceptor(inbox);
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            kafka.send("e1", "e2", "e1", "e3", "e2");
            KafkaMessageListenerContainer<String, String> container =
                    kafka.batchContainer(batch -> batch.forEach(r -> applied.add(r.value())));
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 5);
                kafka.send("e3", "e2");
                await("a batch of duplicates only, committed", 60, () -> kafka.committed() == 7);
                kafka.send("e4");
                await("the next one", 60, () -> kafka.committed() == 8);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("e1", "e2", "e3", "e4");
        assertThat(interceptor.counts().duplicates()).isEqualTo(4);
        assertThat(interceptor.counts().processed()).isEqualTo(4);
    }

    @Test
    void aBusyRecord_holdsTheBatchUntilItsHolderLetsGo() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxBatchInterceptor<String, String> interceptor = interceptor(inbox);
        List<String> applied = new CopyOnWriteArrayList<>();
        Claim holder = inbox.inbox().claims().claim(DedupKeys.cloudEvent("/tests", "b1"));
        try (SpringKafka kafka = new SpringKafka()) {
            kafka.send("b1", "b2");
            KafkaMessageListenerContainer<String, String> container =
                    kafka.batchContainer(batch -> batch.forEach(r -> applied.add(r.value())));
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            container.start();
            try {
                await("several busy rounds", 60, () -> interceptor.counts().busy() >= 5);
                assertThat(applied).isEmpty();
                assertThat(holder.release()).isTrue();
                await("both committed", 60, () -> kafka.committed() == 2);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("b1", "b2");
    }

    /**
     * Two batch containers over one inbox whose batches hold the same two events in opposite orders
     * (two topics, or two partitions a producer re-sent to), both claimed at once: each acquires its
     * first event and finds its second BUSY. A batch that waited in place holding its other claims
     * waited for the other for ever; claims taken in the ids' order, holding only smaller ids while
     * waiting, leave no cycle, and both batches are applied.
     */
    @Test
    void twoBatchesHoldingEachOthersEvents_bothGoOn() throws Exception {
        CyclicBarrier bothClaimedTheirFirst = new CyclicBarrier(2);
        AtomicInteger batchClaims = new AtomicInteger();
        InboxStore real = CaffeineInboxStore.builder().build();
        InboxStore store = (InboxStore) Proxy.newProxyInstance(
                InboxStore.class.getClassLoader(), new Class<?>[] {InboxStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("claimAll")
                            && ((List<?>) args[0]).size() == 2
                            && batchClaims.incrementAndGet() <= 2) {
                        // The two batches' first claims land before either batch's second one.
                        List<ClaimResult> results = new ArrayList<>();
                        for (Object request : (List<?>) args[0]) {
                            results.add(real.claim((ClaimRequest) request));
                            if (results.size() == 1) {
                                bothClaimedTheirFirst.await(10, TimeUnit.SECONDS);
                            }
                        }
                        return results;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        SpringInbox inbox = SpringInbox.leaseOnly(Inbox.builder(store)
                .consumer("crossed")
                .lease(Duration.ofSeconds(30))
                .build());
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka one = new SpringKafka();
                SpringKafka other = new SpringKafka()) {
            one.send("x1", "y1");
            other.send("y1", "x1");
            List<KafkaMessageListenerContainer<String, String>> containers = new ArrayList<>();
            for (SpringKafka kafka : List.of(one, other)) {
                KafkaMessageListenerContainer<String, String> container =
                        kafka.batchContainer(batch -> batch.forEach(r -> applied.add(r.value())));
                InboxKafka.configure(container, interceptor(inbox), BUSY_BACKOFF);
                containers.add(container);
            }
            containers.forEach(KafkaMessageListenerContainer::start);
            try {
                await("both batches committed", 20, () -> one.committed() == 2 && other.committed() == 2);
            } finally {
                containers.forEach(KafkaMessageListenerContainer::stop);
            }
        }
        assertThat(applied).containsExactlyInAnyOrder("x1", "y1");
        assertThat(batchClaims).as("batch claims made at once").hasValueGreaterThanOrEqualTo(2);
    }

    /**
     * Spring Kafka commits every record of a poll once the batch listener returns, so a keyless record
     * can be left out only once it was handed to the missing-key recoverer.
     */
    @Test
    void aKeylessRecordInTheMiddle_goesToTheMissingKeyRecoverer_andTheOthersAreApplied() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        List<String> recovered = new CopyOnWriteArrayList<>();
        InboxBatchInterceptor<String, String> interceptor = new InboxBatchInterceptor<>(
                inbox,
                RecordKeys.cloudEvents(),
                BUSY_BACKOFF,
                (record, missing) ->
                        recovered.add(record.value() + ": " + missing.getClass().getSimpleName()));
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            kafka.send("k1");
            kafka.sendKeyless("no-key");
            kafka.send("k2");
            KafkaMessageListenerContainer<String, String> container =
                    kafka.batchContainer(batch -> batch.forEach(r -> applied.add(r.value())));
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 3);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("k1", "k2");
        assertThat(recovered).containsExactly("no-key: MissingKeyException");
    }

    /** The error handler commits the records before the failed one: their claims must be completed, the rest released. */
    @Test
    void aBatchListenerFailedException_completesTheRecordsBeforeIt_andReleasesTheRest() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxBatchInterceptor<String, String> interceptor = interceptor(inbox);
        List<String> applied = new CopyOnWriteArrayList<>();
        AtomicBoolean failed = new AtomicBoolean();
        try (SpringKafka kafka = new SpringKafka()) {
            kafka.send("f1", "f2", "f3");
            KafkaMessageListenerContainer<String, String> container = kafka.batchContainer(batch -> {
                for (ConsumerRecord<String, String> record : batch) {
                    if (record.value().equals("f2") && failed.compareAndSet(false, true)) {
                        throw new BatchListenerFailedException("f2 failed", record);
                    }
                    applied.add(record.value());
                }
            });
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 3);
                kafka.send("f1", "f4");
                await("the re-send and the next one", 60, () -> kafka.committed() == 5);
            } finally {
                container.stop();
            }
        }
        assertThat(failed).isTrue();
        assertThat(applied)
                .as("f1's claim was completed, so its re-send is a duplicate")
                .containsExactly("f1", "f2", "f3", "f4");
        assertThat(interceptor.counts().busy())
                .as("f2 and f3 were released, not left held")
                .isZero();
    }

    @Test
    void transactionalMode_aFailedBatchRollsBackItsClaimsWithItsWrites() throws Exception {
        String run = Database.run();
        InboxBatchInterceptor<String, String> interceptor = interceptor(db.joining(run));
        AtomicBoolean failed = new AtomicBoolean();
        try (SpringKafka kafka = new SpringKafka()) {
            kafka.send("t1", "t2", "t1", "t3", "t2");
            KafkaMessageListenerContainer<String, String> container = kafka.batchContainer(batch -> {
                batch.forEach(r -> db.apply(run, r.value()));
                if (failed.compareAndSet(false, true)) {
                    throw new IllegalStateException("the listener failed after its writes");
                }
            });
            container.getContainerProperties().setTransactionManager(db.transactions);
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 5);
            } finally {
                container.stop();
            }
        }
        assertThat(failed).isTrue();
        assertThat(db.applications(run))
                .containsOnlyKeys("t1", "t2", "t3")
                .allSatisfy((event, times) -> assertThat(times).as(event).isEqualTo(1L));
        assertThat(db.records(run)).isEqualTo(3);
    }
}
