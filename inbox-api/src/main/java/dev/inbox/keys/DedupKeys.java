package dev.inbox.keys;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.InboxKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Derives the dedup id of an event, four ways, each stable across every redelivery of the same
 * logical event:
 *
 * <ol>
 *   <li><b>Producer-assigned ids</b> ({@link #eventId}, {@link #cloudEvent}, {@link
 *       #cloudEventJson}): sent with every copy of the event, so they catch a producer's re-send
 *       (a retry after a timeout writes a second copy) as well as the broker's redelivery. Prefer
 *       them.
 *   <li><b>Broker-native ids</b> ({@link #kafka}, {@link #sqs}, {@link #sns}, {@link #amqp}): the
 *       record's place in the log or the broker's message id. A Kafka (topic, partition, offset) or
 *       an SQS {@code MessageId} catches only the redelivery of the same record or send, never a
 *       re-send, which lands at a new offset or gets a new id.
 *   <li><b>Business keys</b> ({@link #business}): fields that identify the event in the domain,
 *       such as order id + event type + version; right when the producer may re-publish.
 *   <li><b>Content hashes</b> ({@link #contentHash}): SHA-256 over the RFC 8785 canonical JSON of
 *       the payload with its volatile fields removed; when nothing else is reliable.
 * </ol>
 *
 * <p>Each derivation has its own prefix ({@code id:}, {@code ce:}, {@code kafka:}, {@code sqs:},
 * {@code sns:}, {@code amqp:}, {@code key:}, {@code sha256:}), so ids derived different ways never collide. Never
 * derive an id from a value
 * the producer regenerates per attempt, such as a UUID minted at publish time.
 */
public final class DedupKeys {

    private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final HexFormat HEX = HexFormat.of();

    private DedupKeys() {}

    /**
     * The id of a Kafka record: its (topic, partition, offset), unique within the topic's log.
     *
     * @throws IllegalArgumentException if {@code topic} is not a legal Kafka topic name or {@code
     *     partition} or {@code offset} is negative
     */
    public static String kafka(String topic, int partition, long offset) {
        requireNonNull(topic, "topic");
        requireArgument(KAFKA_TOPIC.matcher(topic).matches(), "not a legal Kafka topic name: \"" + topic + "\"");
        requireArgument(partition >= 0, "partition must not be negative but was " + partition);
        requireArgument(offset >= 0, "offset must not be negative but was " + offset);
        return "kafka:" + topic + ":" + partition + ":" + offset;
    }

    /**
     * The id of an SQS message: its {@code MessageId}. For FIFO queues with content-based
     * deduplication, a {@link #contentHash} of the body is the better choice.
     *
     * @throws IllegalArgumentException if the id is null, empty or would make an invalid key
     */
    public static String sqs(String messageId) {
        return checked("sqs:" + requireNonEmpty(messageId, "messageId"));
    }

    /**
     * The id of an SNS notification: the {@code MessageId} SNS assigns per publish and keeps on
     * every delivery of it to every subscription, its own retries included. Catches SNS's and SQS's
     * redeliveries of one publish, not a publisher that publishes the event again.
     *
     * @throws IllegalArgumentException if the id is null, empty or would make an invalid key
     */
    public static String sns(String messageId) {
        return checked("sns:" + requireNonEmpty(messageId, "messageId"));
    }

    /**
     * The id of an AMQP (RabbitMQ) message: its {@code message-id} property, which the publisher
     * must set (RabbitMQ assigns none).
     *
     * @throws IllegalArgumentException if the id is null, empty or would make an invalid key
     */
    public static String amqp(String messageId) {
        return checked("amqp:" + requireNonEmpty(messageId, "messageId"));
    }

    /**
     * The id of a CloudEvent: its {@code source} and {@code id} attributes, which the CloudEvents
     * specification makes unique per distinct event (a producer that re-sends an event keeps both).
     * In binary mode they travel as headers ({@code ce_source}, {@code ce_id} on Kafka); for
     * structured mode see {@link #cloudEventJson(String)}.
     *
     * @throws IllegalArgumentException if either is null or empty, or the id would be too long
     */
    public static String cloudEvent(String source, String id) {
        return joined("ce", requireNonEmpty(source, "source"), requireNonEmpty(id, "id"));
    }

    /**
     * The id of a CloudEvent in structured mode (the whole event one JSON object, content type
     * {@code application/cloudevents+json}): {@link #cloudEvent(String, String)} of its {@code
     * source} and {@code id} members.
     *
     * @throws IllegalArgumentException if {@code json} is not a JSON object with non-empty string
     *     members {@code source} and {@code id}
     */
    public static String cloudEventJson(String json) {
        requireNonNull(json, "json");
        Object event = JsonParser.parse(json);
        requireArgument(event instanceof Map<?, ?>, "a structured CloudEvent must be a JSON object");
        Map<?, ?> members = (Map<?, ?>) event;
        Object source = members.get("source");
        Object id = members.get("id");
        requireArgument(
                source instanceof String && id instanceof String,
                "a structured CloudEvent needs string members \"source\" and \"id\"");
        return cloudEvent((String) source, (String) id);
    }

    /**
     * An id the producer assigned to the event and sends with every copy of it: a Debezium outbox
     * event's {@code id} header, a message id of your own, a Kafka record key that names the event
     * (not the entity). Catches the broker's redeliveries and the producer's re-sends alike.
     *
     * @throws IllegalArgumentException if {@code eventId} is null or empty, or too long for a key
     */
    public static String eventId(String eventId) {
        return checked("id:" + requireNonEmpty(eventId, "eventId"));
    }

    /**
     * A business key from one or more parts, joined unambiguously: {@code ("a:b", "c")} and {@code
     * ("a", "b:c")} give different ids. A part may be empty; its position still counts.
     *
     * @throws IllegalArgumentException if there are no parts, a part is null, or the result would
     *     be longer than a key may be
     */
    public static String business(String... parts) {
        requireNonNull(parts, "parts");
        requireArgument(parts.length > 0, "a business key needs at least one part");
        for (int i = 0; i < parts.length; i++) {
            requireNonNull(parts[i], "parts[" + i + "]");
        }
        return joined("key", parts);
    }

    /** {@code prefix} and the parts, each after a colon, with colons and backslashes escaped. */
    private static String joined(String prefix, String... parts) {
        StringBuilder out = new StringBuilder(prefix);
        for (String part : parts) {
            out.append(':');
            for (int j = 0; j < part.length(); j++) {
                char c = part.charAt(j);
                if (c == ':' || c == '\\') {
                    out.append('\\');
                }
                out.append(c);
            }
        }
        return checked(out.toString());
    }

    /**
     * The content hash of a JSON payload: {@code sha256:} and the hex SHA-256 of its RFC 8785
     * canonical UTF-8 form, with the members that {@code volatileFields} point at removed (RFC 6901
     * JSON Pointers such as {@code /published_at}, {@code /meta/trace_id}). Two deliveries that
     * differ only in member order, whitespace, number spelling or volatile fields hash equal.
     *
     * @throws IllegalArgumentException if {@code json} is not canonicalizable JSON or a pointer is
     *     invalid
     */
    public static String contentHash(String json, String... volatileFields) {
        requireNonNull(volatileFields, "volatileFields");
        return contentHash(json, List.of(volatileFields));
    }

    /** Like {@link #contentHash(String, String...)}, with the pointers as a collection. */
    public static String contentHash(String json, Collection<String> volatileFields) {
        return sha256(JsonCanonicalizer.canonicalize(json, volatileFields));
    }

    /**
     * {@code sha256:} and the hex SHA-256 of {@code text} encoded as UTF-8; also a good payload
     * fingerprint for {@code Inbox.handle(id, fingerprint, work)}.
     */
    public static String sha256(String text) {
        requireNonNull(text, "text");
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return "sha256:" + HEX.formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }

    private static String requireNonEmpty(String value, String name) {
        requireNonNull(value, name);
        requireArgument(!value.isEmpty(), name + " must not be empty");
        return value;
    }

    private static String checked(String id) {
        return InboxKey.validate(id, "derived id");
    }
}
