package dev.inbox.spi;

/** What a claim found. */
public enum ClaimStatus {
    /**
     * The caller now holds the key: it was new, or another owner's lease had expired, or the same
     * owner retried its claim. Apply the event, then complete or release.
     */
    ACQUIRED,
    /** A completed record exists: the event was already applied. Acknowledge and skip it. */
    DUPLICATE,
    /**
     * Another delivery holds a live lease on the key. Do not acknowledge: let the broker redeliver
     * (the holder may still fail and release it).
     */
    BUSY
}
