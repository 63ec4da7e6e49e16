package dev.inbox.sqs;

import dev.inbox.testing.SqsServer;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** The tests' SQS: clients of the real server ({@link SqsServer}), and queues of their own. */
final class Sqs {

    private Sqs() {}

    /** A new client of the test server (its own connections, as a consumer process has). */
    static SqsClient client() {
        return SqsClient.builder()
                .endpointOverride(URI.create(SqsServer.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** Creates a queue named {@code prefix-<random>} (FIFO when {@code prefix} ends in .fifo). */
    static String createQueue(SqsClient sqs, String prefix, Map<QueueAttributeName, String> attributes) {
        boolean fifo = prefix.endsWith(".fifo");
        String name = (fifo ? prefix.substring(0, prefix.length() - 5) : prefix) + "-" + UUID.randomUUID()
                + (fifo ? ".fifo" : "");
        java.util.Map<QueueAttributeName, String> all = new java.util.HashMap<>(attributes);
        if (fifo) {
            all.put(QueueAttributeName.FIFO_QUEUE, "true");
        }
        return sqs.createQueue(r -> r.queueName(name).attributes(all)).queueUrl();
    }

    /** The ARN of a queue, for a redrive policy. */
    static String arnOf(SqsClient sqs, String queueUrl) {
        return sqs.getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
    }

    /** A redrive policy to {@code deadLetterQueueUrl} after {@code maxReceiveCount} receives. */
    static String redrive(SqsClient sqs, String deadLetterQueueUrl, int maxReceiveCount) {
        return "{\"maxReceiveCount\":\"" + maxReceiveCount + "\",\"deadLetterTargetArn\":\""
                + arnOf(sqs, deadLetterQueueUrl) + "\"}";
    }
}
