package dev.inbox.sqs;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link SqsInboxLoop} under the adapter kit: a queue of its own on the real SQS server whose
 * redrive policy names a dead-letter queue the harness reads (after five receives, so that a BUSY
 * answer that went back to the queue would get a long-held event dead-lettered), one SQS client per consumer (a crash
 * closes it), and a loop started again when an {@code Error} ended it (as a supervised consumer
 * would be). On a FIFO queue (and a FIFO dead-letter queue) the kit's messages are published to
 * two message groups in turn, as the Kafka harness publishes to two partitions, each with a
 * deduplication id of its own (a kit's re-send is a new message to SQS, as a re-send after SQS's
 * five-minute window would be).
 */
final class SqsHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable HikariDataSource pool;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final SqsClient admin = SqsQueues.client();
    private final String dead;
    private final String queue;
    private final AutoCloseable deadReader;

    private final boolean batch;
    private final boolean fifo;
    private final java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
    private final FaultProxy proxy;

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL. */
    SqsHarness(AdapterKit kit, @Nullable HikariDataSource pool) throws IOException {
        this(kit, pool, false);
    }

    /** With {@code batch}, in transactional mode with one transaction per receive. */
    SqsHarness(AdapterKit kit, @Nullable HikariDataSource pool, boolean batch) throws IOException {
        this(kit, pool, batch, false);
    }

    /** As {@link #SqsHarness(AdapterKit, HikariDataSource, boolean)}, on FIFO queues when {@code fifo}. */
    SqsHarness(AdapterKit kit, @Nullable HikariDataSource pool, boolean batch, boolean fifo) throws IOException {
        this.kit = kit;
        this.pool = pool;
        this.batch = batch;
        this.fifo = fifo;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres =
                    PostgresInboxStore.builder(pool).table("inbox_adapter_kit").build();
            postgres.createSchemaIfMissing();
        }
        String suffix = fifo ? ".fifo" : "";
        dead = SqsQueues.create(admin, "inbox-kit-dead" + suffix, Map.of());
        long visibility = Math.max(1, kit.lease().toSeconds());
        queue = SqsQueues.create(
                admin,
                "inbox-kit" + suffix,
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibility),
                        QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(admin, dead, 5)));
        deadReader = SqsQueues.drain(admin, dead, kit::deadLettered);
        InetSocketAddress server = Endpoints.address(SqsServer.endpoint());
        proxy = FaultProxy.start(server.getHostString(), server.getPort());
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        if (!fifo) {
            SqsQueues.send(admin, queue, payload, AdapterKit.ID_HEADER, id);
            return;
        }
        admin.sendMessage(r -> r.queueUrl(queue)
                .messageBody(payload)
                .messageGroupId("group-" + sent.getAndIncrement() % 2)
                .messageDeduplicationId(java.util.UUID.randomUUID().toString())
                .messageAttributes(
                        id == null
                                ? Map.of()
                                : Map.of(
                                        AdapterKit.ID_HEADER,
                                        software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
                                                .dataType("String")
                                                .stringValue(id)
                                                .build())));
    }

    private SqsInboxLoop loop(SqsClient sqs) {
        SqsInboxLoop.Builder builder = pool == null
                ? SqsInboxLoop.lease(
                        sqs,
                        queue,
                        Inbox.builder(kit.store(caffeine))
                                .consumer(kit.consumer())
                                .lease(kit.lease())
                                .build(),
                        message -> kit.apply(message.body(), null))
                : (batch
                                ? (Transactional) SqsInboxLoop::transactionalBatch
                                : (Transactional) SqsInboxLoop::transactional)
                        .loop(
                                sqs,
                                queue,
                                TransactionalInbox.builder(kit.store(postgres), kit.dataSource(pool))
                                        .consumer(kit.consumer())
                                        .build(),
                                (message, connection) -> kit.apply(message.body(), connection));
        return builder.keys(message -> kit.keyOf(message.attribute(AdapterKit.ID_HEADER), message.body()))
                .busyBackoff(kit.backoff())
                .failureBackoff(kit.backoff())
                .waitTime(Duration.ofSeconds(1))
                .build();
    }

    /** {@link SqsInboxLoop#transactional} or {@link SqsInboxLoop#transactionalBatch}. */
    @FunctionalInterface
    private interface Transactional {
        SqsInboxLoop.Builder loop(
                software.amazon.awssdk.services.sqs.SqsClient sqs,
                String queue,
                TransactionalInbox inbox,
                TransactionalSqsMessageHandler handler);
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() throws Exception {
        deadReader.close();
        admin.deleteQueue(r -> r.queueUrl(queue));
        admin.deleteQueue(r -> r.queueUrl(dead));
        admin.close();
        proxy.close();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /** One consumer: its client, and a thread that runs the loop again after an Error ended it. */
    private final class Member implements Running {
        final SqsClient client = SqsQueues.client(Endpoints.via(SqsServer.endpoint(), proxy.host(), proxy.port()));
        final Thread thread = new Thread(this::supervise, "adapter-kit-sqs-consumer");
        volatile boolean ended;
        volatile SqsInboxLoop loop;

        Member() {
            loop = loop(client);
            thread.setDaemon(true);
            thread.start();
        }

        private void supervise() {
            while (!ended) {
                try {
                    loop.run();
                } catch (Error | RuntimeException ended) {
                    if (!this.ended) {
                        loop = loop(client);
                    }
                }
            }
        }

        @Override
        public void stop() throws Exception {
            ended = true;
            loop.stop();
            thread.join(60_000);
            client.close();
        }

        /** Closes the client: nothing more is deleted or put back; may be called from the loop's thread. */
        @Override
        public void crash() {
            ended = true;
            loop.stop();
            client.close();
        }

        @Override
        public void cutConnection() throws IOException {
            proxy.refuse();
        }

        @Override
        public void restoreConnection() throws IOException {
            proxy.accept();
        }
    }
}
