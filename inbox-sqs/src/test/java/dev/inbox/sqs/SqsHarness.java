package dev.inbox.sqs;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.tck.adapter.AdapterKit;
import java.io.IOException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@link SqsInboxLoop} under the adapter kit, on queues of its own ({@link SqsKitQueues}: a
 * dead-letter queue after five receives, FIFO or not): one SQS client per consumer (a crash closes
 * it), and a loop started again when an {@code Error} ended it (as a supervised consumer would be).
 * The queue's visibility timeout is the kit's lease.
 */
final class SqsHarness extends SqsKitHarness {

    private final boolean batch;

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
        super(new SqsKitQueues(kit, pool, fifo, Math.max(1, kit.lease().toSeconds())));
        this.batch = batch;
    }

    private SqsInboxLoop loop(SqsClient sqs) {
        AdapterKit kit = queues.kit;
        SqsInboxLoop.Builder builder = mode() == Mode.LEASE
                ? SqsInboxLoop.lease(sqs, queues.queue, queues.leaseInbox(), message -> kit.apply(message.body(), null))
                : (batch
                                ? (Transactional) SqsInboxLoop::transactionalBatch
                                : (Transactional) SqsInboxLoop::transactional)
                        .loop(
                                sqs,
                                queues.queue,
                                queues.transactionalInbox(),
                                (message, connection) -> kit.apply(message.body(), connection));
        return builder.keys(queues.keys())
                .busyBackoff(kit.backoff())
                .failureBackoff(kit.backoff())
                .waitTime(Duration.ofSeconds(1))
                .build();
    }

    /** {@link SqsInboxLoop#transactional} or {@link SqsInboxLoop#transactionalBatch}. */
    @FunctionalInterface
    private interface Transactional {
        SqsInboxLoop.Builder loop(
                SqsClient sqs, String queue, TransactionalInbox inbox, TransactionalSqsMessageHandler handler);
    }

    @Override
    public Running start() {
        return new Member();
    }

    /** One consumer: its client, and a thread that runs the loop again after an Error ended it. */
    private final class Member extends Consumer {
        final SqsClient client = queues.consumerClient();
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
