package dev.inbox.spi;

/** How a duplicate's payload fingerprint compared with the one the record keeps. */
public enum FingerprintCheck {
    /** Both had a fingerprint and they were equal. */
    MATCH,
    /**
     * Both had a fingerprint and they differed: two different payloads share one key, which is a
     * key-derivation bug the application must hear about.
     */
    MISMATCH,
    /** The claim or the record had no fingerprint, or the result is not a duplicate. */
    NOT_COMPARED;

    /**
     * The check a store computed server-side and reported as a number: 0 not compared, 1 match, 2
     * mismatch (the MySQL statement's code, the Redis script's reply).
     *
     * @throws IllegalArgumentException for any other number
     */
    public static FingerprintCheck fromCode(long code) {
        if (code == 0) {
            return NOT_COMPARED;
        }
        if (code == 1) {
            return MATCH;
        }
        if (code == 2) {
            return MISMATCH;
        }
        throw new IllegalArgumentException("not a fingerprint check code: " + code);
    }

    /** Compares a stored fingerprint with a new one; either may be null. */
    public static FingerprintCheck compare(
            @org.jspecify.annotations.Nullable String stored, @org.jspecify.annotations.Nullable String offered) {
        if (stored == null || offered == null) {
            return NOT_COMPARED;
        }
        return stored.equals(offered) ? MATCH : MISMATCH;
    }
}
