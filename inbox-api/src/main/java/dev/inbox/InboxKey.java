package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The dedup key of one logical event as seen by one logical consumer.
 *
 * <p>Both parts are non-empty strings of at most {@value #MAX_BYTES} UTF-8 bytes, without U+0000
 * and without unpaired surrogates (they could not be stored or compared reliably by every
 * backend). Keys are compared exactly: every store treats {@code "Order-1"}, {@code "order-1"}
 * and {@code "order-1 "} as three different keys and never truncates, folds case or normalises
 * Unicode.
 *
 * <p>The same event consumed by two consumers is applied once by each: the consumer is part of
 * the key.
 */
public final class InboxKey {

    /** The largest size, in UTF-8 bytes, of the consumer and of the id. */
    public static final int MAX_BYTES = 512;

    private final String consumer;
    private final String id;

    private InboxKey(String consumer, String id) {
        this.consumer = consumer;
        this.id = id;
    }

    /**
     * Returns the key of event {@code id} for {@code consumer}.
     *
     * @throws IllegalArgumentException if either part is null, empty, longer than {@value
     *     #MAX_BYTES} UTF-8 bytes, contains U+0000 or an unpaired surrogate
     */
    public static InboxKey of(@Nullable String consumer, @Nullable String id) {
        return new InboxKey(validate(consumer, "consumer"), validate(id, "id"));
    }

    /**
     * Checks one part of a key (a consumer name or an event id) with the rules of this class.
     *
     * @return {@code value}
     * @throws IllegalArgumentException naming {@code name} and the problem
     */
    public static String validate(@Nullable String value, String name) {
        requireNonNull(value, name);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        int bytes = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == 0) {
                throw new IllegalArgumentException(name + " must not contain U+0000 (at index " + i + ")");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= value.length() || !Character.isLowSurrogate(value.charAt(i + 1))) {
                    throw new IllegalArgumentException(name + " has an unpaired high surrogate at index " + i);
                }
                bytes += 4;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException(name + " has an unpaired low surrogate at index " + i);
            } else {
                bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
            if (bytes > MAX_BYTES) {
                throw new IllegalArgumentException(name + " is longer than " + MAX_BYTES + " UTF-8 bytes");
            }
        }
        return value;
    }

    /** The logical consumer (consumer group, service name) that applies the event. */
    public String consumer() {
        return consumer;
    }

    /** The event's dedup id, unique among the consumer's events. */
    public String id() {
        return id;
    }

    /** The id encoded as UTF-8, for stores that keep keys as bytes. */
    public byte[] idBytes() {
        return id.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof InboxKey other && consumer.equals(other.consumer) && id.equals(other.id);
    }

    @Override
    public int hashCode() {
        return 31 * consumer.hashCode() + id.hashCode();
    }

    @Override
    public String toString() {
        return "InboxKey[" + consumer + ", " + id + "]";
    }
}
