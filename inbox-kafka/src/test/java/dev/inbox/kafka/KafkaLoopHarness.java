package dev.inbox.kafka;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * {@link KafkaInboxLoop} under the adapter kit: a topic of two partitions on the real broker, one
 * consumer group, and a loop per consumer that is started again when {@link KafkaInboxLoop#run}
 * ends by a throw (as a supervised consumer would be).
 */
final class KafkaLoopHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable HikariDataSource pool;
    private final @Nullable PostgresInboxStore postgres;
    private final @Nullable CaffeineInboxStore caffeine;
    private final String topic;
    private final String group = "inbox-adapter-kit-" + UUID.randomUUID();
    private final KafkaProducer<String, String> producer = Kafka.producer();
    private final AtomicInteger sent = new AtomicInteger();
    private final boolean batch;
    private final Outage outage = new Outage();

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL. */
    KafkaLoopHarness(AdapterKit kit, @Nullable HikariDataSource pool) throws Exception {
        this(kit, pool, false);
    }

    /**
     * Per poll when {@code batch}: in lease mode ({@code pool} null) the poll's claims completed
     * together ({@link KafkaInboxLoop.Builder#completePerPoll()}); in transactional mode on PostgreSQL
     * one transaction per partition of a poll.
     */
    KafkaLoopHarness(AdapterKit kit, @Nullable HikariDataSource pool, boolean batch) throws Exception {
        this.kit = kit;
        this.pool = pool;
        this.batch = batch;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres =
                    PostgresInboxStore.builder(pool).table("inbox_adapter_kit").build();
            postgres.createSchemaIfMissing();
        }
        topic = Kafka.topic(2);
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        Kafka.publishForKit(producer, topic, sent.getAndIncrement() % 2, id, payload);
    }

    private KafkaInboxLoop<String, String> loop(Consumer<String, String> consumer) {
        KafkaInboxLoop.Builder<String, String> builder = pool == null
                ? KafkaInboxLoop.lease(
                        consumer,
                        Inbox.builder(kit.store(caffeine))
                                .consumer(kit.consumer())
                                .lease(kit.lease())
                                .build(),
                        record -> kit.apply(record.value(), null))
                : (batch
                        ? KafkaInboxLoop.<String, String>transactionalBatch(
                                consumer,
                                TransactionalInbox.builder(kit.store(postgres), kit.dataSource(pool))
                                        .consumer(kit.consumer())
                                        .build(),
                                (record, connection) -> kit.apply(record.value(), connection))
                        : KafkaInboxLoop.transactional(
                                consumer,
                                TransactionalInbox.builder(kit.store(postgres), kit.dataSource(pool))
                                        .consumer(kit.consumer())
                                        .build(),
                                (record, connection) -> kit.apply(record.value(), connection)));
        if (batch && pool == null) {
            builder.completePerPoll();
        }
        return builder.keys(record -> kit.keyOf(Kafka.kitId(record), (String) record.value()))
                .busyBackoff(kit.backoff())
                .failureBackoff(kit.backoff())
                .onMissingKey((record, failure) -> kit.deadLettered(record.value()))
                .build();
    }

    @Override
    public Running start() {
        Member running = new Member();
        running.thread.start();
        return running;
    }

    @Override
    public void close() throws Exception {
        producer.close();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /** One member of the group: a thread that runs a loop, and runs a new one when a loop dies by a throw. */
    private final class Member implements Running {
        final Thread thread = new Thread(this::supervise, "adapter-kit-kafka-consumer");
        volatile boolean stopped;
        volatile boolean crashed;
        volatile @Nullable KafkaConsumer<String, String> current;
        volatile @Nullable KafkaInboxLoop<String, String> loop;

        private void supervise() {
            while (!stopped && !crashed) {
                KafkaConsumer<String, String> consumer = Kafka.consumer(group);
                KafkaInboxLoop<String, String> running = loop(outage.kafkaConsumer(Consumer.class, consumer));
                current = consumer;
                loop = running;
                ConsumerRebalanceListener listener = running.rebalanceListener();
                // A crashed process runs no callbacks: the listener is the loop's only while alive.
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!crashed) {
                            listener.onPartitionsRevoked(partitions);
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        listener.onPartitionsAssigned(partitions);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        listener.onPartitionsLost(partitions);
                    }
                });
                if (stopped) {
                    running.stop();
                }
                try {
                    running.run(Duration.ofMillis(100));
                } catch (Throwable thrown) {
                    // supervised: a loop that died by a throw is replaced by a new one
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopped = true;
            KafkaInboxLoop<String, String> running = loop;
            if (running != null) {
                running.stop();
            }
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }

        /**
         * From the handler (the consumer's own thread, between two calls into the consumer): the
         * consumer is closed at once, its revocation callback skipped, so nothing more is committed —
         * the loop's next call into it fails. From another thread: woken, and closed the same way.
         */
        @Override
        public void crash() {
            crashed = true;
            KafkaConsumer<String, String> consumer = current;
            if (Thread.currentThread() == thread) {
                if (consumer != null) {
                    consumer.close();
                }
                return;
            }
            if (consumer != null) {
                consumer.wakeup();
            }
            try {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
