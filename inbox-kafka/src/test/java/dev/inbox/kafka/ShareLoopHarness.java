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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.WakeupException;
import org.jspecify.annotations.Nullable;

/**
 * {@link KafkaShareInboxLoop} under the adapter kit (lease mode on the in-memory store, or
 * transactional on PostgreSQL): a topic of two partitions on the real broker,
 * one share group whose acquisition lock is the kit's lease (so work longer than the lease outlives
 * the lock too) with renewals enabled, and a loop per member that is started again when {@link
 * KafkaShareInboxLoop#run} ends by a throw (as a supervised consumer would be).
 */
final class ShareLoopHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable HikariDataSource pool;
    private final boolean batch;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final String topic;
    private final String group = "inbox-share-kit-" + UUID.randomUUID();
    private final KafkaProducer<String, String> producer = Kafka.producer();
    private final AtomicInteger sent = new AtomicInteger();
    private final Outage outage = new Outage();

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL. */
    ShareLoopHarness(AdapterKit kit, @Nullable HikariDataSource pool) throws Exception {
        this(kit, pool, false);
    }

    /**
     * As {@link #ShareLoopHarness(AdapterKit, HikariDataSource)}; with {@code batch}, transactional
     * mode's batch form ({@link KafkaShareInboxLoop#transactionalBatch}).
     */
    ShareLoopHarness(AdapterKit kit, @Nullable HikariDataSource pool, boolean batch) throws Exception {
        if (batch && pool == null) {
            throw new IllegalArgumentException("the batch form is transactional: give a pool");
        }
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
        this.topic = Kafka.topic(2);
        Kafka.shareGroup(group, kit.lease());
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        Kafka.publishForKit(producer, topic, sent.getAndIncrement() % 2, id, payload);
    }

    private KafkaShareInboxLoop<String, String> loop(ShareConsumer<String, String> consumer) {
        KafkaShareInboxLoop.Builder<String, String> builder;
        if (pool == null) {
            builder = KafkaShareInboxLoop.lease(
                    consumer,
                    Inbox.builder(kit.store(caffeine))
                            .consumer(kit.consumer())
                            .lease(kit.lease())
                            .build(),
                    record -> kit.apply(record.value(), null));
        } else {
            TransactionalInbox inbox = TransactionalInbox.builder(kit.store(postgres), kit.dataSource(pool))
                    .consumer(kit.consumer())
                    .build();
            TransactionalRecordHandler<String, String> handler =
                    (record, connection) -> kit.apply(record.value(), connection);
            builder = batch
                    ? KafkaShareInboxLoop.transactionalBatch(consumer, inbox, handler)
                    : KafkaShareInboxLoop.transactional(consumer, inbox, handler);
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

    private static final Map<String, Outage.During> DEAD = Map.of(
            "acknowledge",
            ShareLoopHarness::killed,
            "commitSync",
            ShareLoopHarness::killed,
            "poll",
            ShareLoopHarness::killed);

    private static Object killed(@Nullable Object[] args) {
        throw new WakeupException();
    }

    /** One member of the group: a thread that runs a loop, and runs a new one when a loop dies by a throw. */
    private final class Member implements Running {
        final Thread thread = new Thread(this::supervise, "adapter-kit-share-consumer");
        volatile boolean stopped;
        volatile boolean crashed;
        /** Once crashed, the loop's calls into its consumer fail: a killed process acknowledges nothing more. */
        final Outage dead = new Outage();

        volatile @Nullable KafkaShareConsumer<String, String> current;
        volatile @Nullable KafkaShareInboxLoop<String, String> loop;

        private void supervise() {
            while (!stopped && !crashed) {
                KafkaShareConsumer<String, String> consumer = Kafka.shareConsumer(group);
                ShareConsumer<String, String> alive = dead.wrap(ShareConsumer.class, consumer, DEAD);
                try (KafkaShareInboxLoop<String, String> running =
                        loop(outage.kafkaConsumer(ShareConsumer.class, alive))) {
                    current = consumer;
                    loop = running;
                    running.subscribe(List.of(topic));
                    if (stopped) {
                        running.stop();
                    }
                    running.run(Duration.ofMillis(100));
                } catch (Throwable thrown) {
                    // supervised: a loop that died by a throw is replaced by a new one
                } finally {
                    consumer.close(Duration.ofSeconds(crashed ? 0 : 10));
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopped = true;
            KafkaShareInboxLoop<String, String> running = loop;
            if (running != null) {
                running.stop();
            }
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }

        /**
         * The work runs on the loop's worker thread, so from the handler too the consumer is woken
         * rather than closed (it is not thread-safe), and every later call of the loop into it
         * fails: nothing settled after the crash is acknowledged; its thread then closes it.
         */
        @Override
        public void crash() {
            crashed = true;
            dead.begin();
            KafkaShareConsumer<String, String> consumer = current;
            if (consumer != null) {
                consumer.wakeup();
            }
            if (Thread.currentThread().getName().startsWith("inbox-share-work-")) {
                return;
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
