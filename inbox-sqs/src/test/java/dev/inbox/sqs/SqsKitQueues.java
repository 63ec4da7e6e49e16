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
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * What every SQS harness of the adapter kit stands on: a queue of its own on the real SQS server
 * whose redrive policy names a dead-letter queue read in the background (after five receives, so
 * that a BUSY answer that went back to the queue would get a long-held event dead-lettered), a fault
 * proxy in front of the server for the consumers' clients, and the store — in memory for lease mode,
 * or ({@code pool} given) PostgreSQL for transactional mode.
 *
 * <p>On a FIFO queue (and a FIFO dead-letter queue) the kit's messages are published to two message
 * groups in turn, as the Kafka harness publishes to two partitions, each with a deduplication id of
 * its own (a kit's re-send is a new message to SQS, as a re-send after SQS's five-minute window
 * would be).
 */
final class SqsKitQueues implements AutoCloseable {

    final AdapterKit kit;
    final String queue;
    final boolean fifo;
    private final @Nullable HikariDataSource pool;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final SqsClient admin = SqsQueues.client();
    private final String dead;
    private final AutoCloseable deadReader;
    private final FaultProxy proxy;
    private final AtomicInteger sent = new AtomicInteger();

    /** Queues whose messages stay invisible {@code visibilitySeconds} after a receive. */
    SqsKitQueues(AdapterKit kit, @Nullable HikariDataSource pool, boolean fifo, long visibilitySeconds)
            throws IOException {
        this.kit = kit;
        this.pool = pool;
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
        queue = SqsQueues.create(
                admin,
                "inbox-kit" + suffix,
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibilitySeconds),
                        QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(admin, dead, 5)));
        deadReader = SqsQueues.drain(admin, dead, kit::deadLettered);
        InetSocketAddress server = Endpoints.address(SqsServer.endpoint());
        proxy = FaultProxy.start(server.getHostString(), server.getPort());
    }

    AdapterHarness.Mode mode() {
        return pool == null ? AdapterHarness.Mode.LEASE : AdapterHarness.Mode.TRANSACTIONAL;
    }

    /** The queue's ARN, as an event source mapping names it in each record. */
    String arn() {
        return SqsQueues.arnOf(admin, queue);
    }

    /** Sends one of the kit's messages (see the class documentation for FIFO queues). */
    void publish(@Nullable String id, String payload) {
        if (!fifo) {
            SqsQueues.send(admin, queue, payload, AdapterKit.ID_HEADER, id);
            return;
        }
        admin.sendMessage(r -> r.queueUrl(queue)
                .messageBody(payload)
                .messageGroupId("group-" + sent.getAndIncrement() % 2)
                .messageDeduplicationId(UUID.randomUUID().toString())
                .messageAttributes(
                        id == null
                                ? Map.of()
                                : Map.of(
                                        AdapterKit.ID_HEADER,
                                        MessageAttributeValue.builder()
                                                .dataType("String")
                                                .stringValue(id)
                                                .build())));
    }

    /** The kit's key function on an SQS message. */
    SqsKeys keys() {
        return message -> kit.keyOf(message.attribute(AdapterKit.ID_HEADER), message.body());
    }

    /** A lease-mode inbox on the in-memory store, with the kit's consumer and lease. */
    Inbox leaseInbox() {
        return Inbox.builder(kit.store(Objects.requireNonNull(caffeine, "a lease-mode harness")))
                .consumer(kit.consumer())
                .lease(kit.lease())
                .build();
    }

    /** A transactional inbox on PostgreSQL, with the kit's consumer. */
    TransactionalInbox transactionalInbox() {
        return TransactionalInbox.builder(
                        kit.store(Objects.requireNonNull(postgres, "a transactional harness")),
                        kit.dataSource(Objects.requireNonNull(pool)))
                .consumer(kit.consumer())
                .build();
    }

    /** A consumer's own client, through the fault proxy (its connections cut and restored by the kit). */
    SqsClient consumerClient() {
        return SqsQueues.client(Endpoints.via(SqsServer.endpoint(), proxy.host(), proxy.port()));
    }

    void cutConnection() throws IOException {
        proxy.refuse();
    }

    void restoreConnection() throws IOException {
        proxy.accept();
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
}
