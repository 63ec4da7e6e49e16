package dev.inbox.sqs;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.protocols.jsoncore.JsonNode;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * One received SQS message as the handler and the key function see it: an SNS notification's
 * envelope unwrapped, so that {@link #body()} and {@link #attributes()} are what the publisher sent
 * whether SNS raw message delivery is on or off.
 *
 * <p>With raw delivery off, SNS writes a JSON envelope ({@code Type: "Notification"}, {@code
 * MessageId}, {@code TopicArn}, {@code Message}, {@code MessageAttributes}, {@code Timestamp}) as
 * the SQS body; {@link #of(Message)} takes the publisher's body from {@code Message}, its
 * attributes from {@code MessageAttributes}, and keeps the SNS {@code MessageId}. Any other body
 * is taken as it is, with the SQS message attributes.
 */
public final class SqsMessage {

    private final Message message;
    private final String body;
    private final Map<String, String> attributes;
    private final @Nullable String snsMessageId;
    private final @Nullable String topicArn;

    private SqsMessage(
            Message message,
            String body,
            Map<String, String> attributes,
            @Nullable String snsMessageId,
            @Nullable String topicArn) {
        this.message = message;
        this.body = body;
        this.attributes = Map.copyOf(attributes);
        this.snsMessageId = snsMessageId;
        this.topicArn = topicArn;
    }

    /**
     * Reads {@code message}, unwrapping an SNS notification envelope.
     *
     * @throws IllegalArgumentException if {@code message} is null
     */
    public static SqsMessage of(Message message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        String body = message.body() == null ? "" : message.body();
        Map<String, JsonNode> envelope = snsEnvelope(body);
        if (envelope != null) {
            Map<String, String> attributes = new HashMap<>();
            JsonNode published = envelope.get("MessageAttributes");
            if (published != null && published.isObject()) {
                published.asObject().forEach((name, value) -> {
                    String text = value.isObject() ? string(value.asObject().get("Value")) : null;
                    if (text != null) {
                        attributes.put(name, text);
                    }
                });
            }
            return new SqsMessage(
                    message,
                    string(envelope.get("Message")),
                    attributes,
                    string(envelope.get("MessageId")),
                    string(envelope.get("TopicArn")));
        }
        Map<String, String> attributes = new HashMap<>();
        for (Map.Entry<String, MessageAttributeValue> e :
                message.messageAttributes().entrySet()) {
            if (e.getValue().stringValue() != null) {
                attributes.put(e.getKey(), e.getValue().stringValue());
            }
        }
        return new SqsMessage(message, body, attributes, null, null);
    }

    /** The envelope's members when {@code body} is an SNS notification, else null. */
    private static @Nullable Map<String, JsonNode> snsEnvelope(String body) {
        String trimmed = body.strip();
        if (!trimmed.startsWith("{") || !trimmed.contains("\"Notification\"")) {
            return null;
        }
        JsonNode parsed;
        try {
            parsed = JsonNode.parser().parse(trimmed);
        } catch (RuntimeException notJson) {
            return null;
        }
        if (!parsed.isObject()) {
            return null;
        }
        Map<String, JsonNode> members = parsed.asObject();
        boolean notification = "Notification".equals(string(members.get("Type")))
                && string(members.get("MessageId")) != null
                && string(members.get("TopicArn")) != null
                && string(members.get("Message")) != null;
        return notification ? members : null;
    }

    private static @Nullable String string(@Nullable JsonNode node) {
        return node != null && node.isString() ? node.asString() : null;
    }

    /** The message as the SDK received it (receipt handle, system attributes, the SQS body). */
    public Message message() {
        return message;
    }

    /** The SQS {@code MessageId}: new for every send, the same on every redelivery of one send. */
    public String messageId() {
        return message.messageId();
    }

    /** The publisher's body: the SNS envelope's {@code Message}, or the SQS body as it is. */
    public String body() {
        return body;
    }

    /**
     * The publisher's string (and number) attributes: the SNS envelope's {@code MessageAttributes},
     * or the SQS message attributes. Binary attributes are left out.
     */
    public Map<String, String> attributes() {
        return attributes;
    }

    /** One of {@link #attributes()}, or null. */
    public @Nullable String attribute(String name) {
        return attributes.get(name);
    }

    /** True when the SQS body was an SNS notification envelope (raw message delivery off). */
    public boolean isSnsNotification() {
        return snsMessageId != null;
    }

    /** The SNS {@code MessageId} of an unwrapped notification, else null. */
    public @Nullable String snsMessageId() {
        return snsMessageId;
    }

    /** The SNS {@code TopicArn} of an unwrapped notification, else null. */
    public @Nullable String topicArn() {
        return topicArn;
    }

    /** The FIFO {@code MessageGroupId}, or null on a standard queue. */
    public @Nullable String groupId() {
        return message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
    }

    /**
     * When SQS accepted the message ({@code SentTimestamp}, by SQS's clock), or null when the receive
     * did not ask for it (the adapters here do).
     */
    public @Nullable Instant sentAt() {
        String millis = message.attributes().get(MessageSystemAttributeName.SENT_TIMESTAMP);
        return millis == null ? null : Instant.ofEpochMilli(Long.parseLong(millis));
    }

    /** How often SQS has handed this message out, this time included (0 when not asked for). */
    public int receiveCount() {
        String count = message.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
        return count == null ? 0 : Integer.parseInt(count);
    }

    @Override
    public String toString() {
        return "SqsMessage[" + message.messageId() + (snsMessageId == null ? "" : ", sns " + snsMessageId) + "]";
    }
}
