package dev.inbox.spring.kafka.share;

import static java.util.Objects.requireNonNull;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.core.ShareConsumerFactory;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * A container of {@link InboxShareContainerFactory} under the adapter kit (lease mode on the
 * in-memory store, or transactional on PostgreSQL, the listener writing through {@code
 * DataSourceUtils}): a topic of two partitions on the real broker, one share group whose acquisition lock is the
 * kit's lease with renewals enabled, and a watcher that starts the container again when it stopped
 * on its own (its member's loop ended by a throw), as a supervised application would.
 */
final class SpringShareHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    /** Transactional mode's database, with the kit's failures; null in lease mode. */
    private final @Nullable DataSource dataSource;

    private final String topic;
    private final String group = "inbox-spring-share-kit-" + UUID.randomUUID();
    private final KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig());
    private final AtomicInteger sent = new AtomicInteger();
    private final Outage outage = new Outage();

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL. */
    SpringShareHarness(AdapterKit kit, @Nullable HikariDataSource pool) throws Exception {
        this.kit = kit;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
            dataSource = null;
        } else {
            caffeine = null;
            postgres =
                    PostgresInboxStore.builder(pool).table("inbox_adapter_kit").build();
            postgres.createSchemaIfMissing();
            dataSource = kit.dataSource(pool);
        }
        this.topic = ShareKafka.topic(2);
        ShareKafka.shareGroup(group, kit.lease(), 5);
    }

    @Override
    public Mode mode() {
        return dataSource == null ? Mode.LEASE : Mode.TRANSACTIONAL;
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
        if (caffeine != null) {
            caffeine.close();
        }
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
            InboxShareContainerFactory<String, String> factory = dataSource == null
                    ? InboxShareContainerFactory.lease(
                            this,
                            Inbox.builder(kit.store(requireNonNull(caffeine)))
                                    .consumer(kit.consumer())
                                    .lease(kit.lease())
                                    .build())
                    : InboxShareContainerFactory.transactional(
                            this,
                            Inbox.builder(kit.store((TransactionalInboxStore) requireNonNull(postgres)))
                                    .consumer(kit.consumer())
                                    .build(),
                            dataSource);
            factory.configureLoops(loop -> loop.keys(record -> kit.keyOf(id(record), (String) record.value()))
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
                // In transactional mode, the connection the factory bound: the claim's transaction.
                kit.apply(record.value(), dataSource == null ? null : DataSourceUtils.getConnection(dataSource));
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
