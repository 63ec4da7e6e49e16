package dev.inbox.kafka;

import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/**
 * Where a record's dedup id comes from. Prefer an id the producer assigned and sends with every
 * copy of the event ({@link #cloudEvents()}, {@link #debeziumOutbox()}, {@link #header(String)},
 * {@link #recordKey()}): it catches the producer's re-sends as well as the broker's redeliveries.
 * {@link #offset()} catches only the redelivery of the same record.
 *
 * <pre>{@code
 * RecordKeys.firstOf(RecordKeys.cloudEvents(), RecordKeys.header("event-id"), RecordKeys.jsonContentHash())
 * }</pre>
 */
@FunctionalInterface
public interface RecordKeys {

    /**
     * The dedup id of {@code record}, or null when this source has none for it.
     *
     * @throws IllegalArgumentException if the record carries a value that cannot make a valid key
     *     (too long, for example); the loop handles the record as one without a key
     */
    @Nullable
    String keyOf(ConsumerRecord<?, ?> record);

    /**
     * These keys, refusing a copy older than {@code window} by the record's timestamp (the producer's
     * {@code CreateTime}, or the broker's {@code LogAppendTime} when the topic sets it): an {@code
     * EXPIRED} copy, which {@link ExpiredCopyException} explains and every adapter handles as a
     * record without a usable key (the loop's {@code onMissingKey} recoverer, a Spring Kafka error
     * handler's recoverer; without one, progress stops at it) — never applied. Set
     * {@code window} to the inbox's retention: a copy younger than that is always recognised, one
     * older may not be. A record without a timestamp is admitted. Off unless asked for.
     *
     * <pre>{@code
     * RecordKeys.header("event-id").refusingCopiesOlderThan(inbox.retention())
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code window} is null or not positive
     */
    default RecordKeys refusingCopiesOlderThan(Duration window) {
        requirePositive(window, "window");
        return record -> {
            ExpiredCopyException.refuseIfOlderThan(
                    window,
                    record.timestamp() < 0 ? null : Instant.ofEpochMilli(record.timestamp()),
                    "record " + record.topic() + "-" + record.partition() + "@" + record.offset());
            return keyOf(record);
        };
    }

    /**
     * A header the producer sets to the event's id, as {@link DedupKeys#eventId(String)} of its
     * UTF-8 value (the last one when repeated).
     *
     * @throws IllegalArgumentException if {@code name} is null or empty
     */
    static RecordKeys header(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("the header name must not be empty");
        }
        return record -> {
            String value = headerValue(record, name);
            return value == null || value.isEmpty() ? null : DedupKeys.eventId(value);
        };
    }

    /**
     * A CloudEvent's {@code source} + {@code id} ({@link DedupKeys#cloudEvent(String, String)}): in
     * binary mode from the {@code ce_source} and {@code ce_id} headers, in structured mode (header
     * {@code content-type: application/cloudevents+json}) from the JSON value. Null for a record
     * that is neither.
     */
    static RecordKeys cloudEvents() {
        return record -> {
            String id = headerValue(record, "ce_id");
            String source = headerValue(record, "ce_source");
            if (id != null && source != null && !id.isEmpty() && !source.isEmpty()) {
                return DedupKeys.cloudEvent(source, id);
            }
            String contentType = headerValue(record, "content-type");
            if (contentType == null || !contentType.startsWith("application/cloudevents+json")) {
                return null;
            }
            String json = text(record.value());
            return json == null ? null : DedupKeys.cloudEventJson(json);
        };
    }

    /**
     * The event id Debezium's outbox event router puts in the {@code id} header (the outbox row's
     * id): {@code header("id")}.
     */
    static RecordKeys debeziumOutbox() {
        return header("id");
    }

    /**
     * The record key, when the producer keys records by event id (not by entity: a key shared by
     * all of an order's events would make them duplicates of each other). {@code String} and UTF-8
     * {@code byte[]} keys; null for none or another type.
     */
    static RecordKeys recordKey() {
        return record -> {
            String key = text(record.key());
            return key == null || key.isEmpty() ? null : DedupKeys.eventId(key);
        };
    }

    /**
     * SHA-256 of the value's RFC 8785 canonical JSON without {@code volatileFields} (JSON
     * Pointers), for events without any id. Null for a value that is not JSON text.
     */
    static RecordKeys jsonContentHash(String... volatileFields) {
        List<String> fields = List.of(volatileFields);
        return record -> {
            String json = text(record.value());
            if (json == null) {
                return null;
            }
            try {
                return DedupKeys.contentHash(json, fields);
            } catch (IllegalArgumentException notJson) {
                return null;
            }
        };
    }

    /**
     * The record's (topic, partition, offset). <b>Catches only the broker's redelivery of this very
     * record, never a producer's re-send</b>, which is written again at a new offset: an
     * application that publishes again after a timeout gets that event applied twice.
     */
    static RecordKeys offset() {
        return record -> DedupKeys.kafka(record.topic(), record.partition(), record.offset());
    }

    /** The first source that has an id for the record. */
    static RecordKeys firstOf(RecordKeys... sources) {
        List<RecordKeys> all = List.of(sources);
        return record -> {
            for (RecordKeys source : all) {
                String key = source.keyOf(record);
                if (key != null) {
                    return key;
                }
            }
            return null;
        };
    }

    /** The default: a CloudEvent's source + id, else the Debezium outbox {@code id} header. */
    static RecordKeys standard() {
        return firstOf(cloudEvents(), debeziumOutbox());
    }

    private static @Nullable String headerValue(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static @Nullable String text(@Nullable Object value) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return null;
    }
}
