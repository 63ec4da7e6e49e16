package dev.inbox.redis;

import dev.inbox.InboxKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The Redis key of a record: {@code <prefix>:{<consumer as hex>}:<id bytes>}.
 *
 * <p>The consumer, hex-encoded, is the key's hash tag: a Redis Cluster keeps all of one consumer's
 * records in one slot. Hex cannot contain a brace, so no consumer can end the tag early, and
 * braces in the id come after the tag, where they change nothing: no key text can move a record
 * to another slot. The prefix may not contain braces either.
 */
final class RedisKeys {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    private final byte[] records;
    private final byte[] sequences;

    private RedisKeys(String prefix) {
        this.records = (prefix + ":{").getBytes(StandardCharsets.US_ASCII);
        this.sequences = (prefix + ":seq:{").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Keys under {@code prefix}.
     *
     * @throws IllegalArgumentException if the prefix is not 1 to 64 of {@code A-Z a-z 0-9 _ . : -}
     */
    static RedisKeys of(String prefix) {
        dev.inbox.spi.InboxArguments.requireNonNull(prefix, "prefix");
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException(
                    "prefix must be 1 to 64 of A-Z a-z 0-9 _ . : - (no braces), but was \"" + prefix + "\"");
        }
        return new RedisKeys(prefix);
    }

    byte[] record(InboxKey key) {
        return join(records, key);
    }

    byte[] sequence(InboxKey entity) {
        return join(sequences, entity);
    }

    private static byte[] join(byte[] head, InboxKey key) {
        byte[] tag = HexFormat.of()
                .formatHex(key.consumer().getBytes(StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.US_ASCII);
        byte[] id = key.idBytes();
        return ByteBuffer.allocate(head.length + tag.length + 2 + id.length)
                .put(head)
                .put(tag)
                .put((byte) '}')
                .put((byte) ':')
                .put(id)
                .array();
    }
}
