package dev.inbox.spi;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Identifies one delivery attempt that holds a claim.
 *
 * <p>A token is unique to one attempt, never shared by a process or a thread: two deliveries of one
 * message to the same instance must hold different tokens, or both would be let through. It
 * fences {@code complete} and {@code release} (only the holder may finish the claim) and makes a
 * claim retry-safe: a claim whose reply was lost is retried with the same token and is {@code
 * ACQUIRED} again, never mistaken for a duplicate.
 *
 * <p>A token is 1 to {@value #MAX_LENGTH} printable ASCII characters without spaces.
 */
public final class OwnerToken {

    /** The longest token a store must be able to keep. */
    public static final int MAX_LENGTH = 64;

    /** 64 random bits drawn once per JVM: what keeps tokens of different JVMs apart. */
    private static final long PROCESS;

    /** Counts this JVM's tokens, from a random start: what keeps its own tokens apart. */
    private static final AtomicLong SEQUENCE;

    static {
        SecureRandom seed = new SecureRandom();
        PROCESS = seed.nextLong();
        SEQUENCE = new AtomicLong(seed.nextLong());
    }

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final String value;

    private OwnerToken(String value) {
        this.value = value;
    }

    /**
     * A new token for one delivery attempt: 128 bits (22 characters), never repeated in this JVM
     * (a counter) and apart from other JVMs' (a 64-bit prefix drawn once per JVM from {@link
     * SecureRandom}). It fences a stale owner out; it is not a secret, and drawing it costs no
     * {@code SecureRandom} call, which on Linux serialises every thread of a busy consumer.
     */
    public static OwnerToken random() {
        long sequence = SEQUENCE.getAndIncrement();
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (PROCESS >>> (56 - 8 * i));
            bytes[8 + i] = (byte) (sequence >>> (56 - 8 * i));
        }
        return new OwnerToken(ENCODER.encodeToString(bytes));
    }

    /**
     * A token with a value of the caller's choosing (for example one persisted to retry a claim
     * after a restart).
     *
     * @throws IllegalArgumentException if {@code value} is null, empty, longer than {@value
     *     #MAX_LENGTH} characters or has a character outside printable ASCII
     */
    public static OwnerToken of(@Nullable String value) {
        requireNonNull(value, "owner");
        if (value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("owner must have 1 to " + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c > '~') {
                throw new IllegalArgumentException("owner must be printable ASCII without spaces (index " + i + ")");
            }
        }
        return new OwnerToken(value);
    }

    /** The token's text, as stored. */
    public String value() {
        return value;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof OwnerToken other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return value;
    }
}
