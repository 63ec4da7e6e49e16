package dev.inbox.sqs;

import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where a message's dedup id comes from. Prefer an id the publisher assigned and sends with every
 * copy of the event ({@link #attribute(String)}, {@link #cloudEvents()}): it catches the
 * publisher's re-sends as well as SQS's and SNS's redeliveries, and it gives the same key as the
 * Kafka and RabbitMQ adapters' header keys, so one event reaching a consumer through two brokers is
 * applied once. {@link #snsMessageId()} catches SNS's and SQS's redeliveries of one publish; {@link
 * #messageId()} only SQS's redeliveries of one send.
 *
 * <pre>{@code
 * SqsKeys.firstOf(SqsKeys.attribute("event-id"), SqsKeys.snsMessageId(), SqsKeys.jsonContentHash())
 * }</pre>
 */
@FunctionalInterface
public interface SqsKeys {

    /**
     * The dedup id of {@code message}, or null when this source has none for it.
     *
     * @throws IllegalArgumentException if the message carries a value that cannot make a valid key
     *     (too long, for example); the loop handles the message as one without a key
     */
    @Nullable
    String keyOf(SqsMessage message);

    /**
     * These keys, refusing a copy older than {@code window} by its {@code SentTimestamp} (when SQS
     * accepted it, by SQS's clock; through SNS, when SNS delivered it): an {@code EXPIRED} copy, which
     * {@link ExpiredCopyException} explains and every adapter handles as a message without a usable
     * key (left to the queue's redrive policy, reported by a Lambda function) — never applied. Set
     * {@code window} to the inbox's retention: a copy younger than that is always recognised, one
     * older may not be. A message received without its {@code SentTimestamp} is admitted (the
     * adapters here ask for it; a {@code @SqsListener} container gets it with its default
     * attributes). Off unless asked for.
     *
     * @throws IllegalArgumentException if {@code window} is null or not positive
     */
    default SqsKeys refusingCopiesOlderThan(Duration window) {
        requirePositive(window, "window");
        return message -> {
            ExpiredCopyException.refuseIfOlderThan(window, message.sentAt(), message.toString());
            return keyOf(message);
        };
    }

    /**
     * A message attribute the publisher sets to the event's id (an SNS message attribute when the
     * message came through SNS), as {@link DedupKeys#eventId(String)} — the same key as {@code
     * RecordKeys.header(name)} on Kafka gives for the same value.
     *
     * @throws IllegalArgumentException if {@code name} is null or empty
     */
    static SqsKeys attribute(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("the attribute name must not be empty");
        }
        return message -> {
            String value = message.attribute(name);
            return value == null || value.isEmpty() ? null : DedupKeys.eventId(value);
        };
    }

    /**
     * A CloudEvent's {@code source} + {@code id} ({@link DedupKeys#cloudEvent(String, String)}): in
     * binary mode from the {@code ce_source} and {@code ce_id} attributes, else from a body that is
     * a structured CloudEvent (a JSON object with {@code specversion}, {@code source} and {@code
     * id}). Null for a message that is neither.
     */
    static SqsKeys cloudEvents() {
        return message -> {
            String id = message.attribute("ce_id");
            String source = message.attribute("ce_source");
            if (id != null && source != null && !id.isEmpty() && !source.isEmpty()) {
                return DedupKeys.cloudEvent(source, id);
            }
            String body = message.body().strip();
            if (!body.startsWith("{") || !body.contains("\"specversion\"")) {
                return null;
            }
            try {
                return DedupKeys.cloudEventJson(body);
            } catch (IllegalArgumentException notACloudEvent) {
                return null;
            }
        };
    }

    /**
     * The SNS {@code MessageId} of a notification that came through SNS with raw message delivery
     * off ({@link DedupKeys#sns(String)}). It is the same on every delivery of one publish — SNS's
     * own retries and SQS's redeliveries — but a publisher that publishes the event again gets a new
     * one. Null for a message that is not an SNS envelope.
     */
    static SqsKeys snsMessageId() {
        return message -> {
            String id = message.snsMessageId();
            return id == null ? null : DedupKeys.sns(id);
        };
    }

    /**
     * SHA-256 of the body's RFC 8785 canonical JSON without {@code volatileFields} (JSON Pointers),
     * for publishers that mint a new id per send or none at all. Null for a body that is not JSON.
     * The body is the publisher's, an SNS envelope unwrapped. <b>Two distinct events with the same
     * body become one</b> for the whole retention: choose it only where equal bodies are the same
     * event.
     */
    static SqsKeys jsonContentHash(String... volatileFields) {
        List<String> fields = List.of(volatileFields);
        return message -> {
            try {
                return DedupKeys.contentHash(message.body(), fields);
            } catch (IllegalArgumentException notJson) {
                return null;
            }
        };
    }

    /**
     * The SQS {@code MessageId} ({@link DedupKeys#sqs(String)}). <b>Catches only SQS's redelivery
     * of this very send, never a publisher's re-send</b>, which SQS gives a new {@code MessageId}:
     * an application that sends again after a timeout gets that event applied twice.
     */
    static SqsKeys messageId() {
        return message -> DedupKeys.sqs(message.messageId());
    }

    /** The first source that has an id for the message. */
    static SqsKeys firstOf(SqsKeys... sources) {
        List<SqsKeys> all = List.of(sources);
        return message -> {
            for (SqsKeys source : all) {
                String key = source.keyOf(message);
                if (key != null) {
                    return key;
                }
            }
            return null;
        };
    }

    /**
     * The event id Debezium's outbox event router puts in the {@code id} header, here a message
     * attribute: {@code attribute("id")}.
     */
    static SqsKeys debeziumOutbox() {
        return attribute("id");
    }

    /**
     * The default: a CloudEvent's source + id, else the Debezium outbox {@code id} attribute, else
     * the SNS {@code MessageId} of a notification; null (the keyless path: dead-lettered, or left on
     * the queue) for a message with none. Never the content: two distinct events with the same body
     * (two identical orders, a repeated "+1") would be one event for the whole retention.
     */
    static SqsKeys standard() {
        return firstOf(cloudEvents(), debeziumOutbox(), snsMessageId());
    }
}
