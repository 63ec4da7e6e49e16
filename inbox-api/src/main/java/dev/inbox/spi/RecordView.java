package dev.inbox.spi;

import dev.inbox.InboxKey;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One stored record as an operator sees it through {@link InboxAdmin}: read, never changed.
 *
 * @param key the event's key
 * @param state where the record stands, judged by the store's clock when it was read
 * @param owner the owner token of the delivery that holds it, or that completed it; null for a
 *     COMPLETED record of a store that keeps no owner token with it (the in-memory Caffeine store
 *     keeps a hash)
 * @param expiresAt when the lease (IN_PROGRESS) or the retention (COMPLETED) ends, by the store's
 *     clock
 * @param purgeAfter expiry + the writer's grace: from then on the record counts as absent and is
 *     removed
 * @param fingerprint the payload fingerprint the record keeps, or null
 * @param resultBytes the length of the result a COMPLETED record keeps, or null when it keeps none
 */
public record RecordView(
        InboxKey key,
        RecordState state,
        @Nullable String owner,
        Instant expiresAt,
        Instant purgeAfter,
        @Nullable String fingerprint,
        @Nullable Integer resultBytes) {

    /**
     * Checks the arguments.
     *
     * @throws IllegalArgumentException if a required argument is null
     */
    public RecordView {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(state, "state");
        InboxArguments.requireArgument(
                owner != null
                        || state == RecordState.COMPLETED
                        || state == RecordState.RETENTION_ENDED
                        || state == RecordState.EXPIRED,
                "an IN_PROGRESS record has an owner");
        InboxArguments.requireNonNull(expiresAt, "expiresAt");
        InboxArguments.requireNonNull(purgeAfter, "purgeAfter");
    }

    /**
     * A view from times in epoch milliseconds, the record's state judged against {@code nowMillis}
     * (the store's clock).
     */
    public static RecordView ofMillis(
            InboxKey key,
            boolean completed,
            @Nullable String owner,
            long nowMillis,
            long expiresAtMillis,
            long purgeAfterMillis,
            @Nullable String fingerprint,
            @Nullable Integer resultBytes) {
        return new RecordView(
                key,
                RecordState.of(completed, nowMillis, expiresAtMillis, purgeAfterMillis),
                owner,
                Instant.ofEpochMilli(expiresAtMillis),
                Instant.ofEpochMilli(purgeAfterMillis),
                fingerprint,
                resultBytes);
    }
}
