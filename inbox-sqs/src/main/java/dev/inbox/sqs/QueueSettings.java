package dev.inbox.sqs;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.protocols.jsoncore.JsonNode;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesResponse;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * What the loop read from the queue at start ({@code GetQueueAttributes}), and the retention the
 * inbox needs to cover it.
 *
 * @param visibilityTimeout the queue's {@code VisibilityTimeout}: how long a received message
 *     stays hidden before SQS hands it out again
 * @param messageRetention the queue's {@code MessageRetentionPeriod}: how long a message not
 *     deleted can keep coming back
 * @param maxReceiveCount the redrive policy's {@code maxReceiveCount}, or 0 without a redrive
 *     policy
 * @param deadLetterQueueUrl the URL of the redrive policy's dead-letter queue, or null
 * @param fifo whether this is a FIFO queue
 */
public record QueueSettings(
        Duration visibilityTimeout,
        Duration messageRetention,
        int maxReceiveCount,
        @Nullable String deadLetterQueueUrl,
        boolean fifo) {

    /**
     * The shortest inbox retention that recognises every redelivery this queue can make of one
     * send: the larger of {@code maxReceiveCount × visibilityTimeout} (with a redrive policy, the
     * sizing rule for standard queues: a message is handed out at most that many times, one
     * visibility timeout apart when consumers keep polling) and {@code messageRetention} (a message
     * not deleted comes back until it expires, however long the consumers were away). A publisher's
     * re-send, or SNS's, is a new message and is not bounded by either.
     */
    public Duration requiredRetention() {
        Duration byReceives = visibilityTimeout.multipliedBy(maxReceiveCount);
        return byReceives.compareTo(messageRetention) > 0 ? byReceives : messageRetention;
    }

    static QueueSettings read(SqsClient sqs, String queueUrl) {
        GetQueueAttributesResponse response = sqs.getQueueAttributes(r -> r.queueUrl(queueUrl)
                .attributeNames(
                        QueueAttributeName.VISIBILITY_TIMEOUT,
                        QueueAttributeName.MESSAGE_RETENTION_PERIOD,
                        QueueAttributeName.REDRIVE_POLICY,
                        QueueAttributeName.FIFO_QUEUE));
        Map<QueueAttributeName, String> attributes = response.attributes();
        Duration visibility = seconds(attributes.get(QueueAttributeName.VISIBILITY_TIMEOUT), 30);
        Duration retention = seconds(attributes.get(QueueAttributeName.MESSAGE_RETENTION_PERIOD), 345_600);
        boolean fifo =
                "true".equalsIgnoreCase(attributes.get(QueueAttributeName.FIFO_QUEUE)) || queueUrl.endsWith(".fifo");
        String redrive = attributes.get(QueueAttributeName.REDRIVE_POLICY);
        if (redrive == null || redrive.isBlank()) {
            return new QueueSettings(visibility, retention, 0, null, fifo);
        }
        Map<String, JsonNode> policy = JsonNode.parser().parse(redrive).asObject();
        JsonNode count = policy.get("maxReceiveCount");
        int maxReceiveCount =
                count == null ? 0 : Integer.parseInt(count.isNumber() ? count.asNumber() : count.asString());
        JsonNode target = policy.get("deadLetterTargetArn");
        String deadLetterQueueUrl = target == null ? null : urlOf(sqs, target.asString());
        return new QueueSettings(visibility, retention, maxReceiveCount, deadLetterQueueUrl, fifo);
    }

    /** The URL of the queue an ARN ({@code arn:aws:sqs:<region>:<account>:<name>}) names. */
    private static String urlOf(SqsClient sqs, String arn) {
        String[] parts = arn.split(":");
        if (parts.length < 6) {
            throw new IllegalStateException("the redrive policy names a dead-letter queue that is not an ARN: " + arn);
        }
        GetQueueUrlRequest.Builder request = GetQueueUrlRequest.builder().queueName(parts[5]);
        if (!parts[4].isEmpty()) {
            request.queueOwnerAWSAccountId(parts[4]);
        }
        return sqs.getQueueUrl(request.build()).queueUrl();
    }

    private static Duration seconds(@Nullable String value, long otherwise) {
        return Duration.ofSeconds(value == null || value.isBlank() ? otherwise : Long.parseLong(value.strip()));
    }
}
