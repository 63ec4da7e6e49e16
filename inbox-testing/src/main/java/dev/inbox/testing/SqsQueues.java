package dev.inbox.testing;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Clients of the tests' SQS server ({@link SqsServer}) and queues of a test's own: FIFO or not, with
 * a redrive policy, a dead-letter queue read in the background. Needs the AWS SDK's {@code sqs} on
 * the test class path (an optional dependency of this module).
 */
public final class SqsQueues {

    private SqsQueues() {}

    /** A client of {@code endpoint}, with credentials and region any SQS-compatible test server accepts. */
    public static SqsClient client(String endpoint) {
        return SqsClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** A client of the tests' server: its own connections, as a consumer process has. */
    public static SqsClient client() {
        return client(SqsServer.endpoint());
    }

    /** An asynchronous client of the tests' server (what Spring Cloud AWS listens with). */
    public static SqsAsyncClient asyncClient() {
        return SqsAsyncClient.builder()
                .endpointOverride(URI.create(SqsServer.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** Creates a queue named {@code prefix-<random>} (a FIFO queue when {@code prefix} ends in .fifo); its URL. */
    public static String create(SqsClient sqs, String prefix, Map<QueueAttributeName, String> attributes) {
        boolean fifo = prefix.endsWith(".fifo");
        String name = (fifo ? prefix.substring(0, prefix.length() - 5) : prefix) + "-" + UUID.randomUUID()
                + (fifo ? ".fifo" : "");
        Map<QueueAttributeName, String> all = new HashMap<>(attributes);
        if (fifo) {
            all.put(QueueAttributeName.FIFO_QUEUE, "true");
        }
        return sqs.createQueue(r -> r.queueName(name).attributes(all)).queueUrl();
    }

    /** The ARN of a queue, for a redrive policy. */
    public static String arnOf(SqsClient sqs, String queueUrl) {
        return sqs.getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
    }

    /** A redrive policy to {@code deadLetterQueueUrl} after {@code maxReceiveCount} receives. */
    public static String redrive(SqsClient sqs, String deadLetterQueueUrl, int maxReceiveCount) {
        return "{\"maxReceiveCount\":\"" + maxReceiveCount + "\",\"deadLetterTargetArn\":\""
                + arnOf(sqs, deadLetterQueueUrl) + "\"}";
    }

    /** Sends {@code body}, with the string attribute {@code name} set to {@code value} unless it is null. */
    public static void send(SqsClient sqs, String queueUrl, String body, String name, @Nullable String value) {
        sqs.sendMessage(r -> r.queueUrl(queueUrl)
                .messageBody(body)
                .messageAttributes(
                        value == null
                                ? Map.of()
                                : Map.of(
                                        name,
                                        MessageAttributeValue.builder()
                                                .dataType("String")
                                                .stringValue(value)
                                                .build())));
    }

    /** The messages on a queue, visible or in flight. */
    public static int messagesLeft(SqsClient sqs, String queueUrl) {
        Map<QueueAttributeName, String> a = sqs.getQueueAttributes(r -> r.queueUrl(queueUrl)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                + Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    /**
     * Receives from {@code queueUrl} on a thread of its own until closed, handing each body to
     * {@code onBody} and deleting the message: a dead-letter queue a test reads.
     */
    public static AutoCloseable drain(SqsClient sqs, String queueUrl, Consumer<String> onBody) {
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader = new Thread(
                () -> {
                    while (!closed.get()) {
                        try {
                            for (Message m : sqs.receiveMessage(r -> r.queueUrl(queueUrl)
                                            .waitTimeSeconds(1)
                                            .maxNumberOfMessages(10))
                                    .messages()) {
                                onBody.accept(m.body());
                                sqs.deleteMessage(r -> r.queueUrl(queueUrl).receiptHandle(m.receiptHandle()));
                            }
                        } catch (RuntimeException e) {
                            // the queue or the client is going away; the loop ends when closed
                        }
                    }
                },
                "sqs-test-drain");
        reader.setDaemon(true);
        reader.start();
        return () -> {
            closed.set(true);
            reader.join(5_000);
        };
    }
}
