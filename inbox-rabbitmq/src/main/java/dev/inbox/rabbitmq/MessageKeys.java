package dev.inbox.rabbitmq;

import static dev.inbox.spi.InboxArguments.requirePositive;

import com.rabbitmq.client.Delivery;
import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where a message's dedup key comes from. A producer-assigned id catches a producer's re-send as
 * well as the broker's redelivery. A content hash ({@link #jsonContentHash}) catches both without
 * any id, but makes two distinct events with the same body one event: choose it only where equal
 * bodies are the same event.
 *
 * <pre>{@code
 * MessageKeys.firstOf(MessageKeys.messageId(), MessageKeys.header("ce_id"), MessageKeys.jsonContentHash())
 * }</pre>
 */
@FunctionalInterface
public interface MessageKeys {

    /** The key of {@code delivery}, or null when this source has none for it. */
    @Nullable
    String keyOf(Delivery delivery);

    /**
     * These keys, refusing a copy older than {@code window} by its AMQP {@code timestamp} property
     * (set by the producer, in whole seconds; Spring's {@code RabbitTemplate} sets none unless told
     * to): an {@code EXPIRED} copy, which {@link ExpiredCopyException} explains and every adapter
     * handles as a message without a usable key (its {@link KeylessMessages} choice) — never applied.
     * Set {@code window} to the inbox's retention: a copy younger than that is always recognised, one
     * older may not be. A message without a timestamp is admitted. Off unless asked for.
     *
     * @throws IllegalArgumentException if {@code window} is null or not positive
     */
    default MessageKeys refusingCopiesOlderThan(Duration window) {
        requirePositive(window, "window");
        return delivery -> {
            Date timestamp = delivery.getProperties().getTimestamp();
            ExpiredCopyException.refuseIfOlderThan(
                    window,
                    timestamp == null ? null : timestamp.toInstant(),
                    "message " + delivery.getProperties().getMessageId() + " (delivery "
                            + delivery.getEnvelope().getDeliveryTag() + ")");
            return keyOf(delivery);
        };
    }

    /** The AMQP {@code message-id} property, as {@code amqp:<id>}. */
    static MessageKeys messageId() {
        return delivery -> {
            String id = delivery.getProperties().getMessageId();
            return id == null || id.isEmpty() ? null : DedupKeys.amqp(id);
        };
    }

    /**
     * A header the producer sets to the event's id (a CloudEvents {@code ce_id}, the Debezium outbox
     * {@code id}), as {@link DedupKeys#eventId(String)} of its value — the same key as {@code
     * RecordKeys.header(name)} on Kafka and {@code SqsKeys.attribute(name)} on SQS give for the same
     * value, so one event that reaches a service through two brokers is applied once.
     *
     * @throws IllegalArgumentException if {@code name} is null or empty
     */
    static MessageKeys header(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("the header name must not be empty");
        }
        return delivery -> {
            Map<String, Object> headers = delivery.getProperties().getHeaders();
            Object value = headers == null ? null : headers.get(name);
            return value == null || value.toString().isEmpty() ? null : DedupKeys.eventId(value.toString());
        };
    }

    /**
     * SHA-256 of the body's RFC 8785 canonical JSON without {@code volatileFields} (JSON Pointers):
     * key order, whitespace and number spelling do not matter. Null for a body that is not JSON.
     */
    static MessageKeys jsonContentHash(String... volatileFields) {
        List<String> fields = List.of(volatileFields);
        return delivery -> {
            try {
                return DedupKeys.contentHash(new String(delivery.getBody(), StandardCharsets.UTF_8), fields);
            } catch (IllegalArgumentException notJson) {
                return null;
            }
        };
    }

    /** The first source that has a key for the message. */
    static MessageKeys firstOf(MessageKeys... sources) {
        List<MessageKeys> all = List.of(sources);
        return delivery -> {
            for (MessageKeys source : all) {
                String key = source.keyOf(delivery);
                if (key != null) {
                    return key;
                }
            }
            return null;
        };
    }

    /**
     * The event id Debezium's outbox event router puts in the {@code id} header (the outbox row's
     * id): {@code header("id")}.
     */
    static MessageKeys debeziumOutbox() {
        return header("id");
    }

    /**
     * The default: the {@code message-id}, else the Debezium outbox {@code id} header; null (the
     * keyless path: dead-lettered, or progress stops) for a message with neither. Never the
     * content: two distinct events with the same body (two identical orders, a repeated "+1") would
     * be one event for the whole retention. Spring's {@code RabbitTemplate} sets no {@code
     * message-id} unless its message converter is told to ({@code setCreateMessageIds(true)}).
     */
    static MessageKeys standard() {
        return firstOf(messageId(), debeziumOutbox());
    }
}
