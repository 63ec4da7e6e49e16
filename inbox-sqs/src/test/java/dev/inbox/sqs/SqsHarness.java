package dev.inbox.sqs;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link SqsInboxLoop} under the adapter kit: a queue of its own on the real SQS server whose
 * redrive policy names a dead-letter queue the harness reads, one SQS client per consumer (a crash
 * closes it), and a loop started again when an {@code Error} ended it (as a supervised consumer
 * would be).
 */
final class SqsHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable HikariDataSource pool;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final SqsClient admin = Sqs.client();
    private final String dead;
    private final String queue;
    private final Thread deadReader;
    private volatile boolean closed;

    /** In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on PostgreSQL. */
    SqsHarness(AdapterKit kit, @Nullable HikariDataSource pool) {
        this.kit = kit;
        this.pool = pool;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres =
                    PostgresInboxStore.builder(pool).table("inbox_adapter_kit").build();
            postgres.createSchemaIfMissing();
        }
        dead = Sqs.createQueue(admin, "inbox-kit-dead", Map.of());
        long visibility = Math.max(1, kit.lease().toSeconds());
        queue = Sqs.createQueue(
                admin,
                "inbox-kit",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT, Long.toString(visibility),
                        QueueAttributeName.REDRIVE_POLICY, Sqs.redrive(admin, dead, 1000)));
        deadReader = new Thread(this::readDeadLetters, "adapter-kit-sqs-dead-letters");
        deadReader.setDaemon(true);
        deadReader.start();
    }

    private void readDeadLetters() {
        while (!closed) {
            try {
                for (Message m : admin.receiveMessage(
                                r -> r.queueUrl(dead).waitTimeSeconds(1).maxNumberOfMessages(10))
                        .messages()) {
                    kit.deadLettered(m.body());
                    admin.deleteMessage(r -> r.queueUrl(dead).receiptHandle(m.receiptHandle()));
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        admin.sendMessage(r -> r.queueUrl(queue)
                .messageBody(payload)
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
                : SqsInboxLoop.transactional(
                        sqs,
                        queue,
                        TransactionalInbox.builder(kit.store(postgres), pool)
                                .consumer(kit.consumer())
                                .build(),
                        (message, connection) -> kit.apply(message.body(), connection));
        return builder.keys(message -> kit.keyOf(message.attribute(AdapterKit.ID_HEADER), message.body()))
                .busyBackoff(kit.backoff())
                .failureBackoff(kit.backoff())
                .waitTime(Duration.ofSeconds(1))
                .build();
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() throws Exception {
        closed = true;
        deadReader.join(5_000);
        admin.deleteQueue(r -> r.queueUrl(queue));
        admin.deleteQueue(r -> r.queueUrl(dead));
        admin.close();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /** One consumer: its client, and a thread that runs the loop again after an Error ended it. */
    private final class Member implements Running {
        final SqsClient client = Sqs.client();
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
    }
}
