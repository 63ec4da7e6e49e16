package dev.inbox.spring.boot;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The Boot starter under the adapter kit, as an application uses it: each consumer is a Spring
 * Boot application of its own with Boot's Kafka auto-configuration and the starter, one
 * {@code @KafkaListener} doing the kit's work, and what an application supplies as beans — the
 * store (over the kit's), the key function ({@link RecordKeys}), a dead-letter path (Spring Kafka's
 * {@code CommonErrorHandler}, or in transactional mode its {@code AfterRollbackProcessor}, whose
 * recoverer is the kit's) and, in transactional mode ({@code inbox.kafka.transactional=true}), the
 * {@code DataSource} and its transaction manager. Everything else is the starter's wiring: the
 * interceptor, its error handling, the consumer scoped by group, the container's transactions.
 */
final class BootKafkaHarness implements AdapterHarness {

    static final String LISTENER = "kit";

    private final AdapterKit kit;
    private final @Nullable DataSource pool;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final String topic = "inbox-boot-kit-" + UUID.randomUUID();
    private final KafkaProducer<String, String> producer;
    private final AtomicInteger sent = new AtomicInteger();
    private final Outage outage = new Outage();

    /** Lease mode on the in-memory store, or ({@code pool} given) transactional mode on PostgreSQL. */
    BootKafkaHarness(AdapterKit kit, @Nullable DataSource pool) {
        this.kit = kit;
        this.pool = pool;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres = PostgresInboxStore.builder(pool).table("inbox_boot_kit").build();
            postgres.createSchemaIfMissing();
        }
        new KafkaAdmin(Map.of("bootstrap.servers", KafkaBroker.bootstrap()))
                .createOrModifyTopics(new NewTopic(topic, 2, (short) 1));
        producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", KafkaBroker.bootstrap()), new StringSerializer(), new StringSerializer());
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
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

    private static @Nullable String header(ConsumerRecord<?, ?> record) {
        Header header = record.headers().lastHeader(AdapterKit.ID_HEADER);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Boot's Kafka auto-configuration and the starter. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({KafkaAutoConfiguration.class, InboxAutoConfiguration.class})
    static class KitApplication {}

    /** The application's listener: the kit's work, on the transaction's connection in transactional mode. */
    static final class KitListener {
        private final AdapterKit kit;
        private final @Nullable DataSource connections;

        KitListener(AdapterKit kit, @Nullable DataSource connections) {
            this.kit = kit;
            this.connections = connections;
        }

        @KafkaListener(id = LISTENER, topics = "${kit.topic}")
        void on(ConsumerRecord<String, String> record) throws Exception {
            kit.apply(record.value(), connections == null ? null : DataSourceUtils.getConnection(connections));
        }
    }

    /**
     * One consumer: an application, and the consumer its container polls with (captured by the
     * application's own record interceptor, which the starter composes with the inbox's).
     */
    private final class Member extends BootKitApplication {
        volatile @Nullable Consumer<?, ?> consumer;
        volatile @Nullable Thread consumerThread;

        Member() {
            @Nullable DataSource connections = pool == null ? null : kit.dataSource(pool);
            ConsumerRecordRecoverer deadLetters = (record, failure) -> kit.deadLettered((String) record.value());
            FixedBackOff backOff = new FixedBackOff(kit.backoff().toMillis(), 9);
            start(
                    KitApplication.class,
                    kit,
                    postgres == null ? kit.store(caffeine) : kit.store(postgres),
                    connections,
                    Map.of(
                            "kit.topic",
                            topic,
                            "spring.kafka.bootstrap-servers",
                            KafkaBroker.bootstrap(),
                            "spring.kafka.consumer.group-id",
                            "group-" + topic,
                            "spring.kafka.consumer.auto-offset-reset",
                            "earliest",
                            "spring.kafka.consumer.properties.group.protocol",
                            "consumer",
                            "spring.kafka.listener.poll-timeout",
                            "100ms",
                            "inbox.kafka.busy-backoff",
                            kit.backoff().toMillis() + "ms",
                            "inbox.kafka.transactional",
                            Boolean.toString(connections != null)),
                    beans -> {
                        beans.registerBean(
                                RecordKeys.class, () -> record -> kit.keyOf(header(record), (String) record.value()));
                        beans.registerBean(KitListener.class, () -> new KitListener(kit, connections));
                        // While the connection is "cut", a poll waits and finds nothing and a commit
                        // times out, as they do while a Kafka client cannot reach its broker.
                        beans.registerBean(
                                DefaultKafkaConsumerFactoryCustomizer.class,
                                () -> factory -> factory.addPostProcessor(
                                        polling -> outage.kafkaConsumer(Consumer.class, polling)));
                        beans.registerBean(RecordInterceptor.class, () -> new RecordInterceptor<Object, Object>() {
                            @Override
                            public ConsumerRecord<Object, Object> intercept(
                                    ConsumerRecord<Object, Object> record, Consumer<Object, Object> polling) {
                                consumer = polling;
                                consumerThread = Thread.currentThread();
                                return record;
                            }
                        });
                        if (connections == null) {
                            beans.registerBean(
                                    CommonErrorHandler.class, () -> new DefaultErrorHandler(deadLetters, backOff));
                        } else {
                            beans.registerBean(
                                    DefaultAfterRollbackProcessor.class,
                                    () -> new DefaultAfterRollbackProcessor<>(deadLetters, backOff));
                        }
                    });
        }

        @Override
        MessageListenerContainer container() {
            MessageListenerContainer container =
                    context().getBean(KafkaListenerEndpointRegistry.class).getListenerContainer(LISTENER);
            if (container == null) {
                throw new IllegalStateException("no listener container " + LISTENER);
            }
            return container;
        }

        /**
         * From the listener (the consumer's thread, between two calls into the consumer): the
         * consumer is closed at once, so nothing more is committed, and the application is closed
         * from another thread. From another thread: the application is closed.
         */
        @Override
        public void crash() {
            end();
            Consumer<?, ?> polling = consumer;
            if (Thread.currentThread() == consumerThread && polling != null) {
                // A killed process commits nothing more: not even the pending offsets Spring's
                // rebalance listener commits while the consumer closes.
                outage.beginFor(Thread.currentThread());
                polling.close();
                new Thread(context()::close).start();
                return;
            }
            context().close();
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
