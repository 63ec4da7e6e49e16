package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * Turns a handler's result into the bytes a store keeps with the completed record, and back, for
 * {@link Inbox#handleReturning}. Plug in your own (JSON, Protobuf, …); keep its encoding stable
 * across releases of your service, since a duplicate may be answered from bytes an older version
 * stored.
 *
 * @param <T> the result type
 */
public interface ResultCodec<T> {

    /** The bytes to keep for {@code value} (never null; may be empty). */
    byte[] encode(T value);

    /** The value {@link #encode} was given, from its bytes. */
    T decode(byte[] bytes);

    /** Keeps the bytes as they are (copied both ways). */
    static ResultCodec<byte[]> bytes() {
        return Codecs.BYTES;
    }

    /** Keeps a string as UTF-8. */
    static ResultCodec<String> utf8() {
        return Codecs.UTF8;
    }

    /** The codecs of the static factories. */
    final class Codecs {
        private static final ResultCodec<byte[]> BYTES = new ResultCodec<>() {
            @Override
            public byte[] encode(byte[] value) {
                return requireNonNull(value, "value").clone();
            }

            @Override
            public byte[] decode(byte[] bytes) {
                return bytes.clone();
            }

            @Override
            public String toString() {
                return "ResultCodec.bytes()";
            }
        };

        private static final ResultCodec<String> UTF8 = new ResultCodec<>() {
            @Override
            public byte[] encode(String value) {
                return requireNonNull(value, "value").getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public String decode(byte[] bytes) {
                return new String(bytes, StandardCharsets.UTF_8);
            }

            @Override
            public String toString() {
                return "ResultCodec.utf8()";
            }
        };

        private Codecs() {}
    }
}
