package dev.inbox.spring.kafka.share;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.ShareConsumerFactory;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * A container of {@link InboxShareContainerFactory} under the adapter kit (lease mode, the in-memory
 * store): a topic of two partitions on the real broker, one share group whose acquisition lock is the
 * kit's lease with renewals enabled, and a watcher that starts the container again when it stopped
 * on its own (its member's loop ended by a throw), as a supervised application would.
 */
final class SpringShareHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final String topic;
    private final String group = "inbox-spring-share-kit-" + UUID.randomUUID();
    private final KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig());
    private final AtomicInteger sent = new AtomicInteger();
    private final Outage outage = new Outage();

    SpringShareHarness(AdapterKit kit) throws Exception {
        this.kit = kit;
        this.topic = ShareKafka.topic(2);
        ShareKafka.shareGroup(group, kit.lease(), 5);
    }

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

    private static @Nullable String id(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(AdapterKit.ID_HEADER);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() {
        producer.close();
        store.close();
    }

    /** One application: a container of one member, its consumers made here so a crash can silence them. */
    private final class Member implements Running, ShareConsumerFactory<String, String> {
        final Thread watcher = new Thread(this::watch, "adapter-kit-spring-share-watcher");
        /** Once crashed, every call into the consumer fails: a killed process acknowledges nothing more. */
        final Outage dead = new Outage();

        final ShareKafkaMessageListenerContainer<String, String> container;
        volatile boolean ended;
        volatile @Nullable KafkaShareConsumer<String, String> current;

        Member() {
            Inbox inbox = Inbox.builder(kit.store(store))
                    .consumer(kit.consumer())
                    .lease(kit.lease())
                    .build();
            InboxShareContainerFactory<String, String> factory = InboxShareContainerFactory.lease(this, inbox)
                    .configureLoops(loop -> loop.keys(record -> kit.keyOf(id(record), (String) record.value()))
                            .busyBackoff(kit.backoff())
                            .failureBackoff(kit.backoff())
                            .onMissingKey((record, failure) -> kit.deadLettered((String) record.value())));
            factory.getContainerProperties().setPollTimeout(100);
            container = factory.createContainer(topic);
            container.getContainerProperties().setGroupId(group);
            container.setupMessageListener((MessageListener<String, String>) this::apply);
            container.start();
            watcher.setDaemon(true);
            watcher.start();
        }

        @Override
        public ShareConsumer<String, String> createShareConsumer(@Nullable String groupId, @Nullable String clientId) {
            return createShareConsumer(groupId, clientId, Map.of());
        }

        @Override
        public ShareConsumer<String, String> createShareConsumer(
                @Nullable String groupId, @Nullable String clientId, Map<String, Object> overrides) {
            Map<String, Object> config = ShareKafka.shareConsumerConfig(groupId);
            config.putAll(overrides);
            KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(config);
            current = consumer;
            ShareConsumer<String, String> alive = dead.wrap(
                    ShareConsumer.class,
                    consumer,
                    Map.of(
                            "acknowledge", Member::killed,
                            "commitSync", Member::killed,
                            "poll", Member::killed,
                            "close",
                                    args -> {
                                        consumer.close(Duration.ZERO);
                                        return null;
                                    }));
            return outage.kafkaConsumer(ShareConsumer.class, alive);
        }

        private void apply(ConsumerRecord<String, String> record) {
            try {
                kit.apply(record.value(), null);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        private static Object killed(@Nullable Object[] args) {
            throw new WakeupException();
        }

        private void watch() {
            while (!ended) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                if (!ended && !container.isRunning()) {
                    container.start();
                }
            }
        }

        @Override
        public void stop() throws InterruptedException {
            ended = true;
            watcher.join(5_000);
            container.stop();
        }

        /**
         * From the listener (the loop's worker thread) or another: every later call into the consumer
         * fails and its poll is woken, so nothing settled after the crash is acknowledged; the member's
         * loop then ends by a throw and closes it at once. From another thread, waits for that.
         */
        @Override
        public void crash() {
            ended = true;
            dead.begin();
            KafkaShareConsumer<String, String> consumer = current;
            if (consumer != null) {
                consumer.wakeup();
            }
            if (Thread.currentThread().getName().startsWith("inbox-share-work-")) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (container.isRunning() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        @Override
        public void cutConnection() {
            outage.begin();
        }

        @Override
        public void restoreConnection() {
            outage.end();
        }
    }
}
