package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/** The real broker the tests share ({@link KafkaBroker#bootstrap()}), and clients on it. */
final class Kafka {

    private Kafka() {}

    /** A new topic of {@code partitions} partitions, with a name of its own. */
    static String topic(int partitions) throws Exception {
        String name = "inbox-test-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        return name;
    }

    static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(KafkaBroker.producerConfig());
    }

    /** A consumer in {@code group} with auto-commit off, reading from the earliest offset. */
    static KafkaConsumer<String, String> consumer(String group) {
        Map<String, Object> config = KafkaBroker.consumerConfig(group);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        return new KafkaConsumer<>(config);
    }

    /**
     * A share consumer in {@code group}, acknowledging explicitly (as {@link KafkaShareInboxLoop}
     * requires), at most 50 records a poll.
     */
    static KafkaShareConsumer<String, String> shareConsumer(String group) {
        return new KafkaShareConsumer<>(KafkaBroker.shareConsumerConfig(group));
    }

    /**
     * Configures share group {@code group} before its first member joins: from the earliest offset,
     * acquisition locks of {@code lock}, the brokers' delivery limit (5), renewals enabled.
     */
    static void shareGroup(String group, Duration lock) throws Exception {
        shareGroup(group, lock, 5, true);
    }

    /**
     * Configures share group {@code group} before its first member joins: from the earliest offset,
     * acquisition locks of {@code lock}, a record archived at its {@code deliveryLimit}th delivery,
     * renewals enabled or not.
     */
    static void shareGroup(String group, Duration lock, int deliveryLimit, boolean renewals) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        List<AlterConfigOp> settings =
                KafkaBroker.shareGroupSettings(lock.toMillis(), deliveryLimit, renewals).entrySet().stream()
                        .map(setting -> new AlterConfigOp(
                                new ConfigEntry(setting.getKey(), setting.getValue()), AlterConfigOp.OpType.SET))
                        .toList();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
            admin.incrementalAlterConfigs(Map.of(resource, settings)).all().get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Publishes a message of the adapter kit to {@code partition}: body {@code payload}, the kit's id
     * header set to {@code id} unless it is null; returns once the broker has it.
     */
    static void publishForKit(
            KafkaProducer<String, String> producer, String topic, int partition, @Nullable String id, String payload)
            throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, null, payload);
        if (id != null) {
            record.headers().add(AdapterKit.ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(record).get(30, TimeUnit.SECONDS);
    }

    /** The adapter kit's id header of {@code record}, or null when it has none. */
    static @Nullable String kitId(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(AdapterKit.ID_HEADER);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Sends a CloudEvent (binary mode) with id {@code id} to partition {@code partition}, and waits for it. */
    static void sendEvent(KafkaProducer<String, String> producer, String topic, int partition, @Nullable String id)
            throws Exception {
        ProducerRecord<String, String> record =
                new ProducerRecord<>(topic, partition, null, "{\"event\":\"" + id + "\"}");
        if (id != null) {
            record.headers().add("ce_id", id.getBytes(StandardCharsets.UTF_8));
            record.headers().add("ce_source", "/tests".getBytes(StandardCharsets.UTF_8));
        }
        producer.send(record).get(30, TimeUnit.SECONDS);
    }

    /** The committed offset of {@code group} on partition {@code partition}, or -1 for none. */
    static long committed(String group, String topic, int partition) {
        try (KafkaConsumer<String, String> reader = consumer(group)) {
            TopicPartition tp = new TopicPartition(topic, partition);
            OffsetAndMetadata offset = reader.committed(java.util.Set.of(tp), Duration.ofSeconds(30))
                    .get(tp);
            return offset == null ? -1 : offset.offset();
        }
    }
}
