package dev.inbox.http;

import org.jspecify.annotations.Nullable;

/**
 * Reads the value of an {@code Idempotency-Key} header. The draft (draft-ietf-httpapi-idempotency-key-header)
 * makes it a Structured Field string, {@code "8e03978e-40d5-43e8-bc93-6894a57f9324"}; clients that
 * followed Stripe send the bare value. Both are taken: a quoted value is unquoted (escapes {@code \"}
 * and {@code \\} only), a bare one must be visible ASCII without spaces. Either way the key is 1 to
 * {@value #MAX_LENGTH} characters of printable ASCII.
 */
final class IdempotencyKeyHeader {

    /** The longest key taken, in characters. */
    static final int MAX_LENGTH = 255;

    private IdempotencyKeyHeader() {}

    /**
     * The key in {@code raw}.
     *
     * @throws IllegalArgumentException with a message for the client if {@code raw} is not a key
     */
    static String parse(@Nullable String raw) {
        if (raw == null) {
            throw new IllegalArgumentException("no Idempotency-Key header");
        }
        String value = raw.strip();
        String key = value.startsWith("\"") ? unquote(value) : bare(value);
        if (key.isEmpty()) {
            throw new IllegalArgumentException("the Idempotency-Key header is empty");
        }
        if (key.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "the Idempotency-Key is " + key.length() + " characters long, over the limit of " + MAX_LENGTH);
        }
        return key;
    }

    private static String bare(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException(
                        "the Idempotency-Key holds a character other than visible ASCII at index " + i
                                + " (quote it as a string, \"...\", to include spaces)");
            }
        }
        return value;
    }

    private static String unquote(String value) {
        StringBuilder key = new StringBuilder(value.length());
        for (int i = 1; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                if (i != value.length() - 1) {
                    throw new IllegalArgumentException("the Idempotency-Key has characters after its closing quote");
                }
                return key.toString();
            }
            if (c == '\\') {
                char next = i + 1 < value.length() ? value.charAt(i + 1) : 0;
                if (next != '"' && next != '\\') {
                    throw new IllegalArgumentException(
                            "the Idempotency-Key has an escape other than \\\" or \\\\ at index " + i);
                }
                key.append(next);
                i++;
            } else if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException(
                        "the Idempotency-Key holds a character other than printable ASCII at index " + i);
            } else {
                key.append(c);
            }
        }
        throw new IllegalArgumentException("the Idempotency-Key's quoted string has no closing quote");
    }
}
