package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The transactional loop through a real broker into PostgreSQL: producer re-sends, a consumer that
 * dies inside its transaction without committing its offsets, and members joining and leaving the
 * group mid-run — and every event is applied exactly once.
 */
class KafkaTransactionalLoopTest {

    private static final int EVENTS = 300;
    private static final int PARTITIONS = 3;
    private static final String APPLIED = "inbox_kafka_applied";

    private static HikariDataSource pool;
    private static PostgresInboxStore store;

    /** A consumer that dies inside its transaction: not an Exception, so nothing catches it. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    @BeforeAll
    static void database() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(6);
        pool = new HikariDataSource(config);
        store = PostgresInboxStore.builder(pool)
                .table("inbox_kafka")
                .sequenceTable("inbox_kafka_sequence")
                .build();
        store.createSchemaIfMissing();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + APPLIED + " (run text, event text)");
        }
    }

    @AfterAll
    static void close() {
        store.close();
        pool.close();
    }

    /** The batch form answers pollOnce and counts() like the per-record form: what it applied and skipped. */
    @Test
    void transactionalBatch_reportsWhatEachPollDid() throws Exception {
        String run = UUID.randomUUID().toString();
        String topic = Kafka.topic(1);
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, pool).consumer("kafka-" + run).build();
        try (KafkaProducer<String, String> producer = Kafka.producer();
                KafkaConsumer<String, String> consumer = Kafka.consumer("inbox-test-" + run)) {
            for (String event : List.of("a", "b", "a", "c")) {
                Kafka.sendEvent(producer, topic, 0, event);
            }
            KafkaInboxLoop<String, String> loop = KafkaInboxLoop.transactionalBatch(
                            consumer, inbox, (record, connection) -> apply(connection, run, record.value()))
                    .build();
            loop.subscribe(List.of(topic));
            int done = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (done < 4 && System.nanoTime() < deadline) {
                done += loop.pollOnce(Duration.ofMillis(100));
            }
            assertThat(done).as("records done, as pollOnce reported them").isEqualTo(4);
            assertThat(loop.counts().processed()).isEqualTo(3);
            assertThat(loop.counts().duplicates()).isEqualTo(1);
            assertThat(countApplied(run)).isEqualTo(3);
        }
    }

    /**
     * The share loop's batch form: the records in hand go into one transaction (one PostgreSQL
     * transaction id for several applied events), a duplicate among them is skipped, and a handler
     * that fails rolls its transaction back so that the others are applied one transaction each and
     * the failing one alone, after its backoff — each event applied once.
     */
    @Test
    @Tag("extended") // 13 s, most of it a share group joining: CI (-Pcontainers) and -Pextended run it
    void shareTransactionalBatch_appliesTheRecordsInHandInOneTransaction_andAFailureAlone() throws Exception {
        String run = UUID.randomUUID().toString();
        String topic = Kafka.topic(1);
        String group = "inbox-share-batch-" + run;
        Kafka.shareGroup(group, Duration.ofSeconds(15));
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, pool).consumer("share-" + run).build();
        Map<String, List<Long>> transactions = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicInteger boomFailures = new AtomicInteger();
        try (KafkaProducer<String, String> producer = Kafka.producer();
                org.apache.kafka.clients.consumer.KafkaShareConsumer<String, String> consumer =
                        Kafka.shareConsumer(group);
                KafkaShareInboxLoop<String, String> loop = KafkaShareInboxLoop.transactionalBatch(
                                consumer, inbox, (record, connection) -> {
                                    String event = record.value();
                                    if (event.contains("boom") && boomFailures.getAndIncrement() < 2) {
                                        throw new IllegalStateException("boom fails twice");
                                    }
                                    apply(connection, run, event);
                                    try (Statement s = connection.createStatement();
                                            ResultSet txid = s.executeQuery("SELECT txid_current()")) {
                                        txid.next();
                                        transactions
                                                .computeIfAbsent(
                                                        event, e -> new java.util.concurrent.CopyOnWriteArrayList<>())
                                                .add(txid.getLong(1));
                                    }
                                })
                        .keys(RecordKeys.cloudEvents())
                        .failureBackoff(Duration.ofMillis(200))
                        .build()) {
            for (String event : List.of("a", "b", "a", "c")) {
                Kafka.sendEvent(producer, topic, 0, event);
            }
            loop.subscribe(List.of(topic));
            pollUntil(loop, 4);
            assertThat(loop.counts().processed()).isEqualTo(3);
            assertThat(loop.counts().duplicates()).isEqualTo(1);
            assertThat(transactions.values().stream()
                            .map(t -> t.get(0))
                            .distinct()
                            .count())
                    .as("the three new events in fewer than three transactions: %s", transactions)
                    .isLessThan(3);

            for (String event : List.of("d", "boom", "e")) {
                Kafka.sendEvent(producer, topic, 0, event);
            }
            pollUntil(loop, 3);
            assertThat(boomFailures)
                    .as("in the batch's transaction, then alone")
                    .hasValue(3);
            assertThat(applications(run).values()).as("each event once").containsOnly(1);
            assertThat(applications(run)).hasSize(6);
            assertThat(loop.counts().processed()).isEqualTo(6);
        }
    }

    private static void pollUntil(KafkaShareInboxLoop<String, String> loop, int records) {
        int done = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (done < records) {
            assertThat(System.nanoTime() - deadline)
                    .as("after 60 s only %d of %d records done", done, records)
                    .isNegative();
            done += loop.pollOnce(Duration.ofMillis(100));
        }
    }

    @Test
    void completePerPoll_isForLeaseMode_andRefusedOnATransactionalLoop() {
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("kafka-builder")
                .build();
        try (KafkaConsumer<String, String> consumer = Kafka.consumer("inbox-test-builder")) {
            for (KafkaInboxLoop.Builder<String, String> builder : List.of(
                    KafkaInboxLoop.<String, String>transactional(consumer, inbox, (record, connection) -> {}),
                    KafkaInboxLoop.<String, String>transactionalBatch(consumer, inbox, (record, connection) -> {}))) {
                assertThatThrownBy(builder::completePerPoll)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("lease mode");
            }
        }
    }

    // 18 s: the default build storms the transactional loop in BrokerStormTest; CI and -Pextended run this one too.
    @Test
    @Tag("extended")
    void resendsCrashesAndRebalances_everyEventAppliedExactlyOnce() throws Exception {
        String run = UUID.randomUUID().toString();
        String topic = Kafka.topic(PARTITIONS);
        String group = "inbox-test-" + run;
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, pool).consumer("kafka-" + run).build();
        int resends = publish(topic);

        // Phase 1: one consumer applies events until it dies inside its 60th transaction.
        AtomicInteger appliedByFirst = new AtomicInteger();
        try (KafkaConsumer<String, String> first = Kafka.consumer(group)) {
            KafkaInboxLoop<String, String> loop = KafkaInboxLoop.transactional(first, inbox, (record, connection) -> {
                        apply(connection, run, record.value());
                        if (appliedByFirst.incrementAndGet() == 60) {
                            throw new Crash();
                        }
                    })
                    .build();
            loop.subscribe(List.of(topic));
            boolean crashed = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!crashed && System.nanoTime() < deadline) {
                try {
                    loop.pollOnce(Duration.ofMillis(100));
                } catch (Crash expected) {
                    crashed = true;
                }
            }
            assertThat(crashed).as("the first consumer reached its crash").isTrue();
        } // closed without committing what its last poll applied

        // Phase 2: two members share the group; one leaves mid-run; the other finishes.
        Map<TopicPartition, Long> end = endOffsets(topic);
        AtomicBoolean stopSecond = new AtomicBoolean();
        AtomicBoolean stopAll = new AtomicBoolean();
        ExecutorService members = Executors.newFixedThreadPool(2);
        try {
            Future<Long> second = members.submit(() -> member(group, topic, inbox, run, stopSecond));
            Future<Long> third = members.submit(() -> member(group, topic, inbox, run, stopAll));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (countApplied(run) < EVENTS / 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            stopSecond.set(true); // leaves the group: a rebalance mid-run
            long processedBySecond = second.get(60, TimeUnit.SECONDS);
            while (!committedUpTo(group, end) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            stopAll.set(true);
            long processedByThird = third.get(60, TimeUnit.SECONDS);
            assertThat(processedBySecond + processedByThird)
                    .as("records the two members applied")
                    .isPositive();
        } finally {
            stopSecond.set(true);
            stopAll.set(true);
            members.shutdownNow();
        }

        assertThat(committedUpTo(group, end))
                .as("every partition committed to its end")
                .isTrue();
        Map<String, Integer> applications = applications(run);
        assertThat(applications).as("distinct events applied").hasSize(EVENTS);
        assertThat(applications.values())
                .as("applications per event, with %d re-sends", resends)
                .containsOnly(1);
    }

    /** A group member running its loop until {@code stop}; returns how many records it applied. */
    private static long member(String group, String topic, TransactionalInbox inbox, String run, AtomicBoolean stop) {
        try (KafkaConsumer<String, String> consumer = Kafka.consumer(group)) {
            KafkaInboxLoop<String, String> loop = KafkaInboxLoop.transactional(
                            consumer, inbox, (record, connection) -> apply(connection, run, record.value()))
                    .busyBackoff(Duration.ofMillis(100))
                    .failureBackoff(Duration.ofMillis(100))
                    .build();
            loop.subscribe(List.of(topic));
            while (!stop.get()) {
                loop.pollOnce(Duration.ofMillis(100));
            }
            return loop.counts().processed();
        }
    }

    /** Publishes the events, one in five also re-sent later (a new offset, maybe another partition). */
    private static int publish(String topic) throws Exception {
        Random random = new Random(42);
        List<Integer> resent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Kafka.producer()) {
            for (int i = 0; i < EVENTS; i++) {
                Kafka.sendEvent(producer, topic, random.nextInt(PARTITIONS), "e" + i);
                if (random.nextInt(5) == 0) {
                    resent.add(i);
                }
            }
            for (int i : resent) {
                Kafka.sendEvent(producer, topic, random.nextInt(PARTITIONS), "e" + i);
            }
        }
        return resent.size();
    }

    private static void apply(Connection connection, String run, String event) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + APPLIED + " VALUES (?, ?)")) {
            insert.setString(1, run);
            insert.setString(2, event);
            insert.executeUpdate();
        }
    }

    private static int countApplied(String run) throws Exception {
        return applications(run).values().stream().mapToInt(Integer::intValue).sum();
    }

    private static Map<String, Integer> applications(String run) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        try (Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT event, count(*) FROM " + APPLIED + " WHERE run = ? GROUP BY event")) {
            s.setString(1, run);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    counts.put(rows.getString(1), rows.getInt(2));
                }
            }
        }
        return counts;
    }

    private static Map<TopicPartition, Long> endOffsets(String topic) {
        try (KafkaConsumer<String, String> reader = Kafka.consumer("inbox-end-" + UUID.randomUUID())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            return reader.endOffsets(partitions, Duration.ofSeconds(30));
        }
    }

    private static boolean committedUpTo(String group, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
            TopicPartition tp = partition.getKey();
            if (Kafka.committed(group, tp.topic(), tp.partition()) < partition.getValue()) {
                return false;
            }
        }
        return true;
    }
}
