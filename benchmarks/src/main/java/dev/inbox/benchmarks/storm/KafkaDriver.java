package dev.inbox.benchmarks.storm;

import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.kafka.KafkaInboxLoop;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The storm through Kafka: a topic of {@code --partitions} partitions on {@code --kafka-bootstrap}
 * (or a single-node broker started here), CloudEvents ids in the headers, members consuming with
 * {@link KafkaInboxLoop} in one group (the consumer rebalance protocol).
 */
class KafkaDriver implements BrokerDriver {

    private final StormTarget target;
    private final int partitions;
    private final @Nullable KafkaBroker embedded;
    private final String bootstrap;
    private final String topic = "inbox-storm-" + UUID.randomUUID();
    private final String group = "inbox-storm-" + UUID.randomUUID();
    private final Admin admin;
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder busy = new LongAdder();

    KafkaDriver(StormConfig config, StormTarget target) throws Exception {
        this.target = target;
        this.partitions = config.partitions();
        this.embedded = config.kafkaBootstrap().isEmpty() ? KafkaBroker.start() : null;
        this.bootstrap = embedded != null ? embedded.bootstrapServers() : config.kafkaBootstrap();
        this.admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                "10000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "15000"));
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot reach Kafka at " + bootstrap + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "kafka " + bootstrap + (embedded != null ? " (started here)" : "");
    }

    @Override
    public void publish(List<Integer> events) throws Exception {
        try (KafkaProducer<String, String> producer = KafkaClients.producer(bootstrap)) {
            for (int event : events) {
                ProducerRecord<String, String> record =
                        new ProducerRecord<>(topic, event % partitions, null, Integer.toString(event));
                record.headers().add("ce_id", ("e" + event).getBytes(StandardCharsets.UTF_8));
                record.headers().add("ce_source", "/storm".getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
            producer.flush();
        }
    }

    @Override
    public Member join(Applier applier) {
        KafkaConsumer<String, String> consumer = KafkaClients.consumer(bootstrap, group, 100);
        List<Integer> appliedInPoll = new ArrayList<>(); // the member's thread only
        KafkaInboxLoop.Builder<String, String> builder;
        if (target instanceof TransactionalTarget transactional) {
            builder = transactional.batches()
                    ? KafkaInboxLoop.transactionalBatch(
                            consumer, transactional.inbox(), (record, c) -> applier.apply(event(record), c))
                    : KafkaInboxLoop.transactional(
                            consumer, transactional.inbox(), (record, c) -> applier.apply(event(record), c));
        } else if (((LeaseTarget) target).completesPerPoll()) {
            // A crash must be a real one here: the loop completes a poll's claims at its end, and would
            // complete them after a thrown crash too. So a crash cuts this member off its store and
            // wakes its consumer (the commit fails): nothing of the poll is completed or committed, as
            // after a kill, and every record the poll applied is charged to the crash.
            AtomicBoolean dead = new AtomicBoolean();
            builder = KafkaInboxLoop.<String, String>lease(
                            consumer, ((LeaseTarget) target).inbox(dead::get), record -> {
                                int event = event(record);
                                try {
                                    applier.apply(event, null);
                                } catch (ConsumerCrash crash) {
                                    dead.set(true);
                                    consumer.wakeup();
                                    appliedInPoll.forEach(applier::crashedBeforeRecording);
                                    throw crash;
                                }
                                appliedInPoll.add(event);
                            })
                    .completePerPoll();
        } else {
            builder = KafkaInboxLoop.lease(
                    consumer, ((LeaseTarget) target).inbox(), record -> applier.apply(event(record), null));
        }
        KafkaInboxLoop<String, String> loop = builder.keys(RecordKeys.cloudEvents())
                .busyBackoff(Duration.ofMillis(20))
                .failureBackoff(Duration.ofMillis(20))
                .build();
        AtomicBoolean alive = new AtomicBoolean(true);
        AtomicBoolean leaving = new AtomicBoolean();
        Thread thread = new Thread(
                () -> {
                    try {
                        loop.subscribe(List.of(topic));
                        while (!leaving.get()) {
                            appliedInPoll.clear();
                            loop.pollOnce(Duration.ofMillis(50));
                        }
                    } catch (ConsumerCrash crash) {
                        // dies mid-work: whatever its last poll applied stays uncommitted
                    } finally {
                        dev.inbox.Deliveries counts = loop.counts();
                        duplicates.add(counts.duplicates());
                        busy.add(counts.busy());
                        consumer.close(Duration.ofSeconds(5)); // leaves the group: its partitions move on
                        alive.set(false);
                    }
                },
                "storm-kafka-member");
        thread.setDaemon(true);
        thread.start();
        return new Member() {
            @Override
            public boolean alive() {
                return alive.get();
            }

            @Override
            public void leave() {
                leaving.set(true);
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    private static int event(ConsumerRecord<String, String> record) {
        return Integer.parseInt(record.value());
    }

    /** The topic the storm publishes to. */
    String topic() {
        return topic;
    }

    /** The broker's bootstrap servers. */
    String bootstrap() {
        return bootstrap;
    }

    /** The admin client on the broker, for as long as this driver is open. */
    Admin admin() {
        return admin;
    }

    /** The end offset of each of the topic's partitions. */
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> endOffsets() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return admin.listOffsets(latest).all().get(15, TimeUnit.SECONDS);
    }

    @Override
    public boolean drained() throws Exception {
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = endOffsets();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(15, TimeUnit.SECONDS);
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
            OffsetAndMetadata offset = committed.get(end.getKey());
            if (end.getValue().offset() > 0
                    && (offset == null || offset.offset() < end.getValue().offset())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public long[] duplicatesAndBusy() {
        return new long[] {duplicates.sum(), busy.sum()};
    }

    @Override
    public void close() {
        try {
            admin.deleteTopics(List.of(topic)).all().get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the broker may be gone already
        }
        admin.close(Duration.ofSeconds(5));
        if (embedded != null) {
            embedded.close();
        }
    }
}
