package dev.inbox.spring.kafka.share;

import dev.inbox.testing.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.jspecify.annotations.Nullable;

/** Topics, share groups and client settings on the real broker the tests share ({@link KafkaBroker}). */
final class ShareKafka {

    private ShareKafka() {}

    /** A new topic of {@code partitions} partitions, with a name of its own. */
    static String topic(int partitions) throws Exception {
        String name = "inbox-share-test-" + UUID.randomUUID();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        return name;
    }

    /**
     * Configures share group {@code group} before its first member joins: from the earliest offset,
     * acquisition locks of {@code lock}, a record archived at its {@code deliveryLimit}th delivery,
     * renewals enabled.
     */
    static void shareGroup(String group, Duration lock, int deliveryLimit) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        List<AlterConfigOp> settings =
                KafkaBroker.shareGroupSettings(lock.toMillis(), deliveryLimit, true).entrySet().stream()
                        .map(setting -> new AlterConfigOp(
                                new ConfigEntry(setting.getKey(), setting.getValue()), AlterConfigOp.OpType.SET))
                        .toList();
        try (Admin admin = admin()) {
            admin.incrementalAlterConfigs(Map.of(resource, settings)).all().get(60, TimeUnit.SECONDS);
        }
    }

    static Map<String, Object> producerConfig() {
        return KafkaBroker.producerConfig();
    }

    /** A share consumer's settings in {@code group}, at most 50 records a poll. */
    static Map<String, Object> shareConsumerConfig(@Nullable String group) {
        if (group == null) {
            throw new IllegalArgumentException("a share consumer needs a group");
        }
        return KafkaBroker.shareConsumerConfig(group);
    }

    /**
     * Waits until the group has accepted (or archived) every one of the {@code records} records of
     * {@code partition}: none left to deliver, none in a member's hand.
     */
    static void awaitAllAccepted(Admin admin, String group, TopicPartition partition, long records) throws Exception {
        while (true) {
            SharePartitionOffsetInfo start = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(group)
                    .get(15, TimeUnit.SECONDS)
                    .get(partition);
            // The start offset is persisted lazily and may trail the last record accepted; the lag does not.
            if (start != null
                    && (start.startOffset() >= records
                            || start.lag().map(lag -> lag == 0).orElse(false))) {
                return;
            }
            Thread.sleep(50);
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()));
    }
}
