package dev.inbox.spi;

/**
 * Where a stored record stands, judged by the store's own clock when it was read: what an operator
 * sees through {@link InboxAdmin}.
 */
public enum RecordState {
    /** IN_PROGRESS and its lease runs: its owner is working on the event; other deliveries are BUSY. */
    IN_PROGRESS,
    /**
     * IN_PROGRESS and its lease has ended: the owner died or hangs, and the next delivery takes the
     * key over. A record that stays here is stuck: its event waits for a redelivery that may never
     * come.
     */
    LEASE_ENDED,
    /** COMPLETED and its retention runs: deliveries are DUPLICATE. */
    COMPLETED,
    /** COMPLETED and its retention has ended, inside its grace: deliveries are DUPLICATE, flagged late. */
    RETENTION_ENDED,
    /**
     * Past expiry + grace: it counts as absent (the next delivery is ACQUIRED) and {@link
     * InboxStore#purge()}, or the store's native expiry, removes it.
     */
    EXPIRED;

    /**
     * The state of a record, from its times and the store's clock, all in the same unit.
     *
     * @param completed true for a COMPLETED record, false for IN_PROGRESS
     * @param now the store's clock
     * @param expiresAt when the lease or the retention ends
     * @param purgeAfter expiry + the writer's grace: when the record counts as absent
     */
    public static RecordState of(boolean completed, long now, long expiresAt, long purgeAfter) {
        if (now - purgeAfter >= 0) {
            return EXPIRED;
        }
        boolean ended = now - expiresAt >= 0;
        if (completed) {
            return ended ? RETENTION_ENDED : COMPLETED;
        }
        return ended ? LEASE_ENDED : IN_PROGRESS;
    }
}
