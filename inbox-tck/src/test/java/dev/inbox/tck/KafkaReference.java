package dev.inbox.tck;

import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/**
 * What the kit's Kafka reference adapters share ({@link ReferenceKafkaHarness}, a consumer group's
 * poll loop; {@link ReferenceShareHarness}, a share group's consumer): a topic of two partitions
 * on the real broker, a group id, a lease-mode inbox on the reference store that tries each
 * completion once ({@code claimAttempts(1)}: retrying one is the adapter's own job, so A13 tests
 * the adapter), the kit's publishing, and its key function as a reference adapter reads it.
 */
abstract class KafkaReference implements AdapterHarness {

    final AdapterKit kit;
    final ReferenceStore store = new ReferenceStore(Duration.ofMinutes(1), new HashMap<>());
    final Inbox inbox;
    final String topic = "inbox-kit-reference-" + UUID.randomUUID();
    final String group = "inbox-kit-reference-" + UUID.randomUUID();
    final Outage outage = new Outage();
    private final KafkaProducer<String, String> producer;
    private final AtomicInteger sent = new AtomicInteger();

    KafkaReference(AdapterKit kit) throws Exception {
        this.kit = kit;
        this.inbox = Inbox.builder(kit.store(store))
                .consumer(kit.consumer())
                .lease(kit.lease())
                .claimAttempts(1)
                .build();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
            configureGroup(admin);
        }
        producer = new KafkaProducer<>(KafkaBroker.producerConfig());
    }

    /** Sets what the group needs before its first member joins (only the base's fields are set yet); nothing here. */
    void configureGroup(Admin admin) throws Exception {}

    @Override
    public Mode mode() {
        return Mode.LEASE;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, sent.getAndIncrement() % 2, null, payload);
        if (id != null) {
            record.headers().add(AdapterKit.ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
        }
        producer.send(record).get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        producer.close();
        store.close();
    }

    /** The kit's key function on {@code record}; null for a record without a usable key. */
    @Nullable
    String idOf(ConsumerRecord<String, String> record) {
        Header header = record.headers().lastHeader(AdapterKit.ID_HEADER);
        try {
            String id = kit.keyOf(
                    header == null ? null : new String(header.value(), StandardCharsets.UTF_8), record.value());
            if (id != null) {
                InboxKey.of(kit.consumer(), id);
            }
            return id;
        } catch (RuntimeException invalid) {
            return null;
        }
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(Math.max(1, duration.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
