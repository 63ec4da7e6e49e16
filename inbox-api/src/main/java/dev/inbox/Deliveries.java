package dev.inbox;

/**
 * What a broker adapter did with the deliveries it handled since it was built: one count per
 * {@link DeliveryOutcome}, the same in every adapter ({@code KafkaInboxLoop}, {@code InboxConsumer},
 * {@code SqsInboxLoop}). Each delivery is also reported to the inbox's {@link
 * InboxMetrics#delivered} (the {@code inbox.deliveries} meter of {@code inbox-micrometer}), which
 * is what an operator watches; these counts are for the application and its tests.
 *
 * @param processed deliveries whose work ran and was recorded, then acknowledged or committed
 *     (also when the completion could not be recorded after the work: the work is not run again)
 * @param duplicates deliveries acknowledged without work, as already applied
 * @param busy times a delivery found its event held by another and was retried after the back-off
 * @param failed times the work (or a recoverer) threw and the delivery was retried after the back-off
 * @param deadLettered deliveries handed to the dead-letter path: no usable key, or failed work given
 *     up on
 * @param storeFailures times the store could not answer and the delivery was retried after the back-off
 */
public record Deliveries(
        long processed, long duplicates, long busy, long failed, long deadLettered, long storeFailures) {

    /** The deliveries acknowledged (or committed, or deleted) as done: processed and duplicates. */
    public long acknowledged() {
        return processed + duplicates;
    }

    /** The count of {@code outcome}. */
    public long count(DeliveryOutcome outcome) {
        return switch (outcome) {
            case PROCESSED -> processed;
            case DUPLICATE -> duplicates;
            case BUSY -> busy;
            case FAILED -> failed;
            case DEAD_LETTERED -> deadLettered;
            case STORE_FAILED -> storeFailures;
        };
    }
}
