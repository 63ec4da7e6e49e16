package dev.inbox.benchmarks.storm;

import dev.inbox.sqs.SqsInboxLoop;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The storm through SQS: a queue of its own on {@code --sqs-endpoint} (or an ElasticMQ started
 * here), CloudEvents ids in the message attributes (the same keys as the Kafka storm's), and members
 * each receiving with an {@link SqsInboxLoop} on a client of their own. A member that crashes closes
 * its client first, so nothing more is deleted or put back: what it held comes back after the
 * visibility timeout, as from a killed process. {@code --broker sqs-fifo} uses a FIFO queue with
 * {@code --partitions} message groups, each send with a deduplication id of its own (a re-send after
 * SQS's five-minute window, which the inbox must catch).
 */
final class SqsDriver implements BrokerDriver {

    private final StormTarget target;
    private final boolean fifo;
    private final int groups;
    private final @Nullable SqsServer embedded;
    private final String endpoint;
    private final SqsClient admin;
    private @Nullable String queue;
    private final Duration visibility;
    private final List<SqsInboxLoop> loops = new CopyOnWriteArrayList<>();
    private long published;

    SqsDriver(StormConfig config, StormTarget target) {
        this.target = target;
        this.fifo = config.broker().equals("sqs-fifo");
        this.groups = config.partitions();
        this.embedded = config.sqsEndpoint().isEmpty() ? SqsServer.start() : null;
        this.endpoint = embedded != null ? embedded.url() : config.sqsEndpoint();
        this.admin = SqsQueues.client(endpoint);
        // SQS counts visibility in whole seconds; the lease must fit in it.
        this.visibility = Duration.ofSeconds(Math.max(2, (config.lease().toMillis() + 999) / 1000));
        String name = "inbox-storm-" + UUID.randomUUID() + (fifo ? ".fifo" : "");
        try {
            queue = admin.createQueue(r -> r.queueName(name)
                            .attributes(
                                    fifo
                                            ? Map.of(
                                                    QueueAttributeName.FIFO_QUEUE,
                                                    "true",
                                                    QueueAttributeName.VISIBILITY_TIMEOUT,
                                                    seconds(visibility))
                                            : Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, seconds(visibility))))
                    .queueUrl();
        } catch (RuntimeException e) {
            close();
            throw new IllegalStateException("cannot reach SQS at " + endpoint + ": " + Endpoint.rootCause(e), e);
        }
    }

    private static String seconds(Duration d) {
        return Long.toString(d.toSeconds());
    }

    @Override
    public String describe() {
        return (fifo ? "sqs-fifo " : "sqs ") + endpoint + (embedded != null ? " (ElasticMQ started here)" : "");
    }

    @Override
    public void publish(List<Integer> events) {
        List<SendMessageBatchRequestEntry> batch = new ArrayList<>(10);
        for (int event : events) {
            SendMessageBatchRequestEntry.Builder entry = SendMessageBatchRequestEntry.builder()
                    .id(Integer.toString(batch.size()))
                    .messageBody(Integer.toString(event))
                    .messageAttributes(Map.of("ce_id", text("e" + event), "ce_source", text("/storm")));
            if (fifo) {
                entry.messageGroupId("g" + (event % groups))
                        .messageDeduplicationId(UUID.randomUUID().toString());
            }
            batch.add(entry.build());
            if (batch.size() == 10) {
                send(batch);
            }
        }
        if (!batch.isEmpty()) {
            send(batch);
        }
        published += events.size();
    }

    private void send(List<SendMessageBatchRequestEntry> batch) {
        var response = admin.sendMessageBatch(r -> r.queueUrl(queue).entries(batch));
        if (response.hasFailed() && !response.failed().isEmpty()) {
            throw new IllegalStateException("SQS refused " + response.failed().size() + " sends: " + response.failed());
        }
        batch.clear();
    }

    private static MessageAttributeValue text(String value) {
        return MessageAttributeValue.builder()
                .dataType("String")
                .stringValue(value)
                .build();
    }

    @Override
    public Member join(Applier applier) {
        SqsClient client = SqsQueues.client(endpoint);
        SqsInboxLoop[] self = new SqsInboxLoop[1];
        AtomicBoolean alive = new AtomicBoolean(true);
        // Lease mode completes a receive's claims together at its end, and would complete them after a
        // thrown crash too: a crash cuts the member off its store as well, as a kill does, and every
        // message its receive applied before the crash is charged to it.
        AtomicBoolean dead = new AtomicBoolean();
        AtomicBoolean leaving = new AtomicBoolean();
        List<Integer> appliedInReceive = new ArrayList<>(); // the member's thread only
        Applier crashing = (event, connection) -> {
            try {
                applier.apply(event, connection);
            } catch (ConsumerCrash crash) {
                dead.set(true);
                self[0].stop();
                client.close(); // dies: nothing more deleted or put back
                appliedInReceive.forEach(applier::crashedBeforeRecording);
                throw crash;
            }
            appliedInReceive.add(event);
        };
        SqsInboxLoop.Builder builder = target instanceof TransactionalTarget transactional
                ? (transactional.batches()
                        ? SqsInboxLoop.transactionalBatch(
                                client,
                                queue,
                                transactional.inbox(),
                                (message, c) -> crashing.apply(Integer.parseInt(message.body()), c))
                        : SqsInboxLoop.transactional(
                                client,
                                queue,
                                transactional.inbox(),
                                (message, c) -> crashing.apply(Integer.parseInt(message.body()), c)))
                : SqsInboxLoop.lease(
                        client,
                        queue,
                        ((LeaseTarget) target).inbox(dead::get),
                        message -> crashing.apply(Integer.parseInt(message.body()), null));
        SqsInboxLoop loop = builder.keys(SqsKeys.cloudEvents())
                .visibilityTimeout(visibility)
                .waitTime(Duration.ofSeconds(1))
                .busyBackoff(Duration.ofSeconds(1))
                .failureBackoff(Duration.ZERO)
                .build();
        self[0] = loop;
        loops.add(loop);
        Thread thread = new Thread(
                () -> {
                    try {
                        while (!dead.get() && !leaving.get()) { // SqsInboxLoop.run(), a receive at a time
                            appliedInReceive.clear();
                            try {
                                loop.pollOnce();
                            } catch (SdkException unreachable) {
                                Thread.sleep(100);
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (ConsumerCrash crash) {
                        // died mid-receive: what it held comes back after the visibility timeout
                    } finally {
                        client.close();
                        alive.set(false);
                    }
                },
                "storm-sqs-member");
        thread.setDaemon(true);
        thread.start();
        return new Member() {
            @Override
            public boolean alive() {
                return alive.get();
            }

            @Override
            public void leave() {
                leaving.set(true);
                loop.stop();
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** Every message deleted: as many deletions as sends, and nothing left on the queue, hidden or not. */
    @Override
    public boolean drained() {
        long deleted = 0;
        for (SqsInboxLoop loop : loops) {
            deleted += loop.counts().acknowledged();
        }
        if (deleted < published) {
            return false;
        }
        Map<QueueAttributeName, String> left = admin.getQueueAttributes(r -> r.queueUrl(queue)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return Integer.parseInt(left.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)) == 0
                && Integer.parseInt(left.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)) == 0;
    }

    @Override
    public long[] duplicatesAndBusy() {
        long duplicates = 0;
        long busy = 0;
        for (SqsInboxLoop loop : loops) {
            duplicates += loop.counts().duplicates();
            busy += loop.counts().busy();
        }
        return new long[] {duplicates, busy};
    }

    @Override
    public void close() {
        try {
            String created = queue;
            if (created != null) {
                admin.deleteQueue(r -> r.queueUrl(created));
            }
        } catch (RuntimeException e) {
            // the server may be gone already
        } finally {
            admin.close();
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
