package dev.inbox.spi;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.InboxKey;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one claim: which key, for which owner, for how long, and optionally a
 * fingerprint of the payload.
 *
 * <p>A value object so that the SPI can grow without breaking stores. It is validated when built:
 * a store receives only well-formed requests.
 */
public final class ClaimRequest {

    /** The longest fingerprint a store must be able to keep. */
    public static final int MAX_FINGERPRINT_LENGTH = 128;

    private final InboxKey key;
    private final OwnerToken owner;
    private final Duration lease;
    private final @Nullable String fingerprint;

    private ClaimRequest(InboxKey key, OwnerToken owner, Duration lease, @Nullable String fingerprint) {
        this.key = key;
        this.owner = owner;
        this.lease = lease;
        this.fingerprint = fingerprint;
    }

    /**
     * A claim of {@code key} by {@code owner} for {@code lease}.
     *
     * @throws IllegalArgumentException if an argument is null or {@code lease} is not positive
     */
    public static ClaimRequest of(@Nullable InboxKey key, @Nullable OwnerToken owner, @Nullable Duration lease) {
        return new ClaimRequest(
                requireNonNull(key, "key"), requireNonNull(owner, "owner"), requirePositive(lease, "lease"), null);
    }

    /**
     * This request carrying a payload fingerprint (for example {@code DedupKeys.sha256(payload)}),
     * which the record keeps so that a later duplicate can say whether its payload matched.
     *
     * @param fingerprint 1 to {@value #MAX_FINGERPRINT_LENGTH} printable ASCII characters, or null
     *     for none
     * @throws IllegalArgumentException if the fingerprint is empty, too long or not printable ASCII
     */
    public ClaimRequest withFingerprint(@Nullable String fingerprint) {
        return new ClaimRequest(key, owner, lease, validateFingerprint(fingerprint));
    }

    /**
     * Checks a fingerprint with the rules of {@link #withFingerprint(String)}.
     *
     * @return {@code fingerprint}
     */
    public static @Nullable String validateFingerprint(@Nullable String fingerprint) {
        if (fingerprint == null) {
            return null;
        }
        if (fingerprint.isEmpty() || fingerprint.length() > MAX_FINGERPRINT_LENGTH) {
            throw new IllegalArgumentException("fingerprint must have 1 to " + MAX_FINGERPRINT_LENGTH + " characters");
        }
        for (int i = 0; i < fingerprint.length(); i++) {
            char c = fingerprint.charAt(i);
            if (c <= ' ' || c > '~') {
                throw new IllegalArgumentException(
                        "fingerprint must be printable ASCII without spaces (index " + i + ")");
            }
        }
        return fingerprint;
    }

    /** The key to claim. */
    public InboxKey key() {
        return key;
    }

    /** The delivery attempt that claims it. */
    public OwnerToken owner() {
        return owner;
    }

    /** How long the claim is held before another delivery may take it over. */
    public Duration lease() {
        return lease;
    }

    /** The payload fingerprint, or null when the caller gave none. */
    public @Nullable String fingerprint() {
        return fingerprint;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ClaimRequest other
                && key.equals(other.key)
                && owner.equals(other.owner)
                && lease.equals(other.lease)
                && Objects.equals(fingerprint, other.fingerprint);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, owner, lease, fingerprint);
    }

    @Override
    public String toString() {
        return "ClaimRequest[" + key + ", owner=" + owner + ", lease=" + lease
                + (fingerprint == null ? "" : ", fingerprint=" + fingerprint) + "]";
    }
}
