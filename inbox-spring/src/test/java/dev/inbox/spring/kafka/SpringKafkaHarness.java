package dev.inbox.spring.kafka;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The Spring Kafka record interceptor under the adapter kit: Spring Kafka's own container on a
 * topic of two partitions of the real broker, with {@link InboxKafka#configure} and an error handler
 * (or, in transactional mode, an after-rollback processor) whose recoverer is the kit's dead-letter
 * path. In transactional mode the container runs each record in a {@code DataSourceTransactionManager}
 * transaction that the claim joins.
 */
final class SpringKafkaHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable Database db;
    private final boolean batch;
    private final @Nullable CaffeineInboxStore caffeine;
    private final SpringInbox inbox;
    private final Database.@Nullable KitTransactions transactions;
    private final String topic = "inbox-spring-kit-" + UUID.randomUUID();
    private final String group = "group-" + topic;
    private final DefaultKafkaProducerFactory<String, String> producers;
    private final KafkaTemplate<String, String> template;
    private final DefaultKafkaConsumerFactory<String, String> consumers;
    private final AtomicInteger sent = new AtomicInteger();
    private final Outage outage = new Outage();

    /** Lease mode on the in-memory store, or ({@code db} given) transactional mode on its PostgreSQL. */
    SpringKafkaHarness(AdapterKit kit, @Nullable Database db) {
        this(kit, db, false);
    }

    /**
     * As {@link #SpringKafkaHarness(AdapterKit, Database)}; with {@code batch}, a batch listener
     * behind {@link InboxBatchInterceptor} that names a failing record with a {@link
     * BatchListenerFailedException}, as Spring Kafka asks of batch listeners.
     */
    SpringKafkaHarness(AdapterKit kit, @Nullable Database db, boolean batch) {
        this.kit = kit;
        this.db = db;
        this.batch = batch;
        this.caffeine = db == null ? CaffeineInboxStore.builder().build() : null;
        this.transactions = db == null ? null : db.forKit(kit);
        this.inbox = Database.kitInbox(kit, db, transactions, caffeine);
        new KafkaAdmin(Map.of("bootstrap.servers", KafkaBroker.bootstrap()))
                .createOrModifyTopics(new NewTopic(topic, 2, (short) 1));
        producers = SpringKafka.producers();
        template = new KafkaTemplate<>(producers);
        consumers = SpringKafka.consumers(group);
        // While the connection is "cut", a poll waits and finds nothing and a commit times out, as
        // they do while a Kafka client cannot reach its broker.
        consumers.addPostProcessor(consumer -> outage.kafkaConsumer(Consumer.class, consumer));
        if (db != null) {
            // Offsets committed after the listener's transaction, not inside it (A14).
            consumers.addPostProcessor(new CommitsAfterTransaction<>());
        }
    }

    @Override
    public Mode mode() {
        return db == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, sent.getAndIncrement() % 2, null, payload);
        if (id != null) {
            record.headers().add(AdapterKit.ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
        }
        template.send(record).get(30, TimeUnit.SECONDS);
    }

    private static @Nullable String header(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(AdapterKit.ID_HEADER);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() {
        producers.destroy();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /**
     * One consumer: a container, the consumer it polls with (captured by an interceptor before the
     * inbox's), and a watcher that starts a new container when Spring Kafka stopped one on its own
     * (it stops a container whose listener threw an {@code Error}), as a supervised application would.
     */
    private final class Member implements Running {
        final Thread watcher = new Thread(this::watch, "adapter-kit-spring-kafka-watcher");
        volatile KafkaMessageListenerContainer<String, String> container;
        volatile boolean ended;
        volatile @Nullable Consumer<?, ?> consumer;
        volatile @Nullable Thread consumerThread;

        Member() {
            container = newContainer();
            container.start();
            watcher.setDaemon(true);
            watcher.start();
        }

        private void watch() {
            while (!ended) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                if (!ended && !container.isRunning()) {
                    container = newContainer();
                    container.start();
                }
            }
        }

        private KafkaMessageListenerContainer<String, String> newContainer() {
            ContainerProperties properties = new ContainerProperties(topic);
            properties.setPollTimeout(100);
            if (transactions != null) {
                properties.setTransactionManager(transactions.manager());
            }
            KafkaMessageListenerContainer<String, String> created =
                    new KafkaMessageListenerContainer<>(consumers, properties);
            if (batch) {
                created.setupMessageListener((BatchMessageListener<String, String>) records -> {
                    for (ConsumerRecord<String, String> record : records) {
                        try {
                            apply(record);
                        } catch (RuntimeException | Error e) { // named, as a batch listener must
                            throw new BatchListenerFailedException("adapter kit: the work failed", e, record);
                        }
                    }
                });
            } else {
                created.setupMessageListener((MessageListener<String, String>) this::apply);
            }
            FixedBackOff backOff = new FixedBackOff(kit.backoff().toMillis(), 9);
            if (db == null) {
                created.setCommonErrorHandler(new DefaultErrorHandler(
                        (record, failure) -> kit.deadLettered((String) record.value()), backOff));
            } else {
                created.setAfterRollbackProcessor(new DefaultAfterRollbackProcessor<>(
                        (record, failure) -> kit.deadLettered((String) record.value()), backOff));
            }
            RecordKeys keys = record -> kit.keyOf(header(record), (String) record.value());
            if (batch) {
                created.setBatchInterceptor(new BatchInterceptor<>() {
                    @Override
                    public ConsumerRecords<String, String> intercept(
                            ConsumerRecords<String, String> records, Consumer<String, String> polling) {
                        polled(polling);
                        return records;
                    }
                });
                InboxKafka.configure(
                        created,
                        new InboxBatchInterceptor<String, String>(
                                inbox,
                                keys,
                                kit.backoff(),
                                (record, missing) -> kit.deadLettered((String) record.value())),
                        kit.backoff());
            } else {
                created.setRecordInterceptor(new RecordInterceptor<>() {
                    @Override
                    public ConsumerRecord<String, String> intercept(
                            ConsumerRecord<String, String> record, Consumer<String, String> polling) {
                        polled(polling);
                        return record;
                    }
                });
                InboxKafka.configure(created, new InboxRecordInterceptor<String, String>(inbox, keys), kit.backoff());
            }
            return created;
        }

        /** Remembers the consumer this member polls with, and its thread, for crash(). */
        private void polled(Consumer<?, ?> polling) {
            consumer = polling;
            consumerThread = Thread.currentThread();
        }

        private void apply(ConsumerRecord<String, String> record) {
            try {
                kit.apply(
                        record.value(),
                        transactions == null ? null : DataSourceUtils.getConnection(transactions.connections()));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void stop() throws InterruptedException {
            ended = true;
            watcher.join(5_000);
            container.stop();
        }

        /**
         * From the listener or the recording of its outcome (the consumer's thread, between two
         * calls into the consumer): every commit from that thread fails from now on and the
         * consumer is closed at once, so nothing more is committed, and the container is stopped
         * from another thread. From another thread: the container is stopped.
         */
        @Override
        public void crash() {
            ended = true;
            Consumer<?, ?> polling = consumer;
            if (Thread.currentThread() == consumerThread && polling != null) {
                // A killed process commits nothing more: not even the pending offsets Spring's
                // rebalance listener commits while the consumer closes.
                outage.beginFor(Thread.currentThread());
                polling.close();
                new Thread(container::stop).start();
                return;
            }
            container.stop();
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
