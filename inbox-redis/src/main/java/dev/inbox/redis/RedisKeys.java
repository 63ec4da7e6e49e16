package dev.inbox.redis;

import dev.inbox.InboxKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The Redis keys of records and sequences under one prefix, in one {@link RedisKeyLayout}.
 *
 * <p>Consumers are hex-encoded and hex cannot contain a brace, so no consumer can open or end a
 * hash tag; ids come after the store's own tag, where braces change nothing; the prefix may not
 * contain braces either. So no key text can move a record to another slot. Sequence keys keep the
 * consumer as their tag in both layouts ({@code <prefix>:seq:{<consumer as hex>}:<entity bytes>}):
 * each sequence is one key, and its state is kept for good, so it never moves.
 */
final class RedisKeys {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    private static final HexFormat HEX = HexFormat.of();

    private final String prefix;
    private final RedisKeyLayout layout;
    private final byte[] head;
    private final byte[] sequences;
    private volatile @Nullable ConsumerHex lastConsumer; // most stores serve one consumer

    private record ConsumerHex(String consumer, byte[] utf8, byte[] hex) {}

    private RedisKeys(String prefix, RedisKeyLayout layout) {
        this.prefix = prefix;
        this.layout = layout;
        this.head = (prefix + (layout == RedisKeyLayout.SPREAD ? ":" : ":{")).getBytes(StandardCharsets.US_ASCII);
        this.sequences = (prefix + ":seq:{").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Checks {@code prefix}.
     *
     * @throws IllegalArgumentException if the prefix is not 1 to 64 of {@code A-Z a-z 0-9 _ . : -}
     */
    static String requirePrefix(String prefix) {
        dev.inbox.spi.InboxArguments.requireNonNull(prefix, "prefix");
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException(
                    "prefix must be 1 to 64 of A-Z a-z 0-9 _ . : - (no braces), but was \"" + prefix + "\"");
        }
        return prefix;
    }

    /**
     * Keys under {@code prefix}, in the default {@link RedisKeyLayout#SPREAD} layout.
     *
     * @throws IllegalArgumentException if the prefix is not 1 to 64 of {@code A-Z a-z 0-9 _ . : -}
     */
    static RedisKeys of(String prefix) {
        return of(prefix, RedisKeyLayout.SPREAD);
    }

    /**
     * Keys under {@code prefix} in {@code layout}.
     *
     * @throws IllegalArgumentException if the prefix is not 1 to 64 of {@code A-Z a-z 0-9 _ . : -}
     */
    static RedisKeys of(String prefix, RedisKeyLayout layout) {
        dev.inbox.spi.InboxArguments.requireNonNull(layout, "layout");
        return new RedisKeys(requirePrefix(prefix), layout);
    }

    String prefix() {
        return prefix;
    }

    RedisKeyLayout layout() {
        return layout;
    }

    byte[] record(InboxKey key) {
        ConsumerHex consumer = hexOf(key.consumer());
        byte[] id = key.idBytes();
        if (layout == RedisKeyLayout.CONSUMER_SLOT) {
            return join(head, consumer.hex, id);
        }
        CRC32C crc = new CRC32C();
        crc.update(consumer.utf8);
        crc.update(id);
        String tag = HEX.toHexDigits((int) crc.getValue());
        return ByteBuffer.allocate(head.length + consumer.hex.length + 12 + id.length)
                .put(head)
                .put(consumer.hex)
                .put((byte) ':')
                .put((byte) '{')
                .put(tag.getBytes(StandardCharsets.US_ASCII))
                .put((byte) '}')
                .put((byte) ':')
                .put(id)
                .array();
    }

    byte[] sequence(InboxKey entity) {
        return join(sequences, hexOf(entity.consumer()).hex, entity.idBytes());
    }

    /**
     * The {@code SCAN MATCH} pattern of this layout's record keys: {@code <prefix>:}, then a brace for {@link
     * RedisKeyLayout#CONSUMER_SLOT}; the record keys of {@link RedisKeyLayout#SPREAD} start with a
     * hex digit after the prefix, never with a brace, and sequence keys with {@code seq:}.
     */
    byte[] recordPattern() {
        return (prefix + (layout == RedisKeyLayout.SPREAD ? ":[0-9a-f]*" : ":{*")).getBytes(StandardCharsets.US_ASCII);
    }

    /** The {@code SCAN MATCH} pattern of the record keys of {@code consumer}, in this layout. */
    byte[] consumerPattern(String consumer) {
        String hex = new String(hexOf(consumer).hex, StandardCharsets.US_ASCII);
        return (prefix + (layout == RedisKeyLayout.SPREAD ? ":" + hex + ":{*" : ":{" + hex + "}:*"))
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** The key a record key of this layout names, or null for a key of another shape. */
    @Nullable
    InboxKey parse(byte[] recordKey) {
        String text = new String(recordKey, StandardCharsets.ISO_8859_1); // one char a byte
        String start = new String(head, StandardCharsets.ISO_8859_1);
        if (!text.startsWith(start)) {
            return null;
        }
        int end = text.indexOf(layout == RedisKeyLayout.SPREAD ? ':' : '}', start.length());
        int idStart = layout == RedisKeyLayout.SPREAD ? end + 12 : end + 2;
        if (end <= start.length() || (end - start.length()) % 2 != 0 || idStart > text.length()) {
            return null;
        }
        try {
            String consumer = new String(HEX.parseHex(text, start.length(), end), StandardCharsets.UTF_8);
            byte[] id = java.util.Arrays.copyOfRange(recordKey, idStart, recordKey.length);
            InboxKey key = InboxKey.of(consumer, new String(id, StandardCharsets.UTF_8));
            return java.util.Arrays.equals(record(key), recordKey) ? key : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private ConsumerHex hexOf(String consumer) {
        ConsumerHex last = lastConsumer;
        if (last != null && last.consumer.equals(consumer)) {
            return last;
        }
        byte[] utf8 = consumer.getBytes(StandardCharsets.UTF_8);
        ConsumerHex hex = new ConsumerHex(consumer, utf8, HEX.formatHex(utf8).getBytes(StandardCharsets.US_ASCII));
        lastConsumer = hex;
        return hex;
    }

    private static byte[] join(byte[] head, byte[] tag, byte[] id) {
        return ByteBuffer.allocate(head.length + tag.length + 2 + id.length)
                .put(head)
                .put(tag)
                .put((byte) '}')
                .put((byte) ':')
                .put(id)
                .array();
    }
}
