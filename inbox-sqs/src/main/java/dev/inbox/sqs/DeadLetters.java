package dev.inbox.sqs;

import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * Where {@link SqsInboxLoop} sends a message it must never run — one without a usable dedup key:
 * the dead-letter queue named on the loop's builder, else the one of the queue's redrive policy,
 * else none (the message is then left on its queue). The copy keeps the body and the message
 * attributes; on a FIFO dead-letter queue it keeps the message's group (or {@value #FIFO_GROUP}) and
 * is deduplicated by the original message id, so a copy sent twice is one.
 */
final class DeadLetters {

    /** The group of a copy on a FIFO dead-letter queue whose message had none. */
    static final String FIFO_GROUP = "inbox-dead-letters";

    private final SqsClient sqs;
    private final @Nullable String target;

    /** To the queue named ({@code named}), else to the redrive policy's ({@code settings}). */
    DeadLetters(SqsClient sqs, @Nullable String named, QueueSettings settings) {
        this.sqs = sqs;
        this.target = named != null ? named : settings.deadLetterQueueUrl();
    }

    /** The dead-letter queue's URL, or null when there is none. */
    @Nullable
    String target() {
        return target;
    }

    /**
     * Sends a copy of {@code message} to the dead-letter queue; the caller deletes the original.
     *
     * @throws IllegalStateException if there is no dead-letter queue ({@link #target()} is null)
     * @throws SdkException if SQS did not take the copy
     */
    void send(SqsMessage message) {
        if (target == null) {
            throw new IllegalStateException("no dead-letter queue to send " + message + " to");
        }
        Message original = message.message();
        SendMessageRequest.Builder send = SendMessageRequest.builder()
                .queueUrl(target)
                .messageBody(original.body())
                .messageAttributes(original.messageAttributes());
        if (target.endsWith(".fifo")) {
            String group = message.groupId();
            send.messageGroupId(group != null ? group : FIFO_GROUP).messageDeduplicationId(original.messageId());
        }
        sqs.sendMessage(send.build());
    }
}
