package dev.inbox.benchmarks.brokers;

import dev.inbox.testing.KafkaBroker;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The Kafka clients the storm and the adapter benchmark use: strings, and offsets left to the caller. */
public final class KafkaClients {

    private KafkaClients() {}

    /**
     * A producer that batches for up to 5 ms, without idempotence: the storm wants a re-send to be a
     * record of its own, and a single-node broker that has just created a topic answered an
     * idempotent producer with OUT_OF_ORDER_SEQUENCE_NUMBER for minutes here.
     */
    public static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p);
    }

    /**
     * A member of {@code group} on the consumer rebalance protocol, auto-commit off, reading from
     * the earliest offset, at most {@code maxPollRecords} per poll.
     */
    public static KafkaConsumer<String, String> consumer(String bootstrap, String group, int maxPollRecords) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /**
     * A member of share group {@code group} in explicit acknowledgement mode, at most {@code
     * maxPollRecords} per poll. Configure the group first ({@link #configureShareGroup}).
     */
    public static KafkaShareConsumer<String, String> shareConsumer(String bootstrap, String group, int maxPollRecords) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaShareConsumer<>(p);
    }

    /**
     * The settings of a storm member of share group {@code group}: explicit acknowledgement, and at
     * most {@code inHand} records acquired at a time ({@code share.acquire.mode=record_limit}).
     */
    public static Properties shareMemberConfig(String bootstrap, String group, int inHand) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("share.acquire.mode", "record_limit");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(inHand));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return p;
    }

    /**
     * Configures share group {@code group} before its first member joins: from the earliest
     * offset, acquisition locks of {@code lockMillis}, the brokers' delivery limit (5), lock renewals on.
     */
    public static void configureShareGroup(String bootstrap, String group, long lockMillis) throws Exception {
        configureShareGroup(bootstrap, group, lockMillis, Map.of());
    }

    /** {@link #configureShareGroup(String, String, long)} with {@code more} group settings. */
    public static void configureShareGroup(String bootstrap, String group, long lockMillis, Map<String, String> more)
            throws Exception {
        Map<String, String> all = new java.util.HashMap<>(KafkaBroker.shareGroupSettings(lockMillis, 5, true));
        all.putAll(more);
        List<org.apache.kafka.clients.admin.AlterConfigOp> settings = all.entrySet().stream()
                .map(setting -> new AlterConfigOp(
                        new ConfigEntry(setting.getKey(), setting.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        try (Admin admin =
                Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), settings))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * Whether share group {@code group} has acknowledged every record up to {@code ends} (each
     * partition's end offset): accepted, or archived.
     */
    public static boolean shareGroupDrained(
            Admin admin, String group, Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends)
            throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> starts = admin.listShareGroupOffsets(
                        Map.of(group, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(group)
                .get(15, TimeUnit.SECONDS);
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
            SharePartitionOffsetInfo start = starts.get(end.getKey());
            // The start offset is persisted lazily and may trail the last record accepted; the lag
            // (records not yet accepted or archived, those in a member's hand included) does not.
            boolean done = start != null
                    && (start.startOffset() >= end.getValue().offset()
                            || start.lag().map(lag -> lag == 0).orElse(false));
            if (end.getValue().offset() > 0 && !done) {
                return false;
            }
        }
        return true;
    }
}
