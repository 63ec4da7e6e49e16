package dev.inbox.kafka;

import dev.inbox.Claim;
import dev.inbox.DeliveryOutcome;
import dev.inbox.FailurePolicy;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * One attempt at one share-group record in lease mode, on the loop's worker thread: claim its event,
 * run the handler for a new one, complete the claim, and answer how the record is to be acknowledged
 * — or when it is to be tried again, held meanwhile. It never answers {@code RELEASE}: a released
 * record is redelivered with its delivery count raised, and the group archives it at its limit.
 */
final class ShareAttempt<K, V> {

    private static final System.Logger LOG = System.getLogger(KafkaShareInboxLoop.class.getName());

    /** How an attempt ended: acknowledge the record with {@code type}, or try it again after {@code retryAfter}. */
    record Result(@Nullable AcknowledgeType type, Duration retryAfter) {

        static Result settle(AcknowledgeType type) {
            return new Result(type, Duration.ZERO);
        }

        static Result retry(Duration after) {
            return new Result(null, after);
        }
    }

    private final Inbox inbox;
    private final RecordHandler<K, V> handler;
    private final DeliveryCounts counts;
    private final Duration busyBackoff;
    private final Duration failureBackoff;
    private final FailurePolicy.Attempts attempts;
    private final @Nullable RecordRecoverer<K, V> recoverer;
    private final @Nullable RecordRecoverer<K, V> missingKey;

    ShareAttempt(
            Inbox inbox,
            RecordHandler<K, V> handler,
            Duration busyBackoff,
            Duration failureBackoff,
            FailurePolicy policy,
            @Nullable RecordRecoverer<K, V> recoverer,
            @Nullable RecordRecoverer<K, V> missingKey) {
        this.inbox = inbox;
        this.handler = handler;
        this.counts = new DeliveryCounts(inbox.consumer(), inbox.metrics());
        this.busyBackoff = busyBackoff;
        this.failureBackoff = failureBackoff;
        this.attempts = policy.attemptsOf();
        this.recoverer = recoverer;
        this.missingKey = missingKey;
    }

    DeliveryCounts counts() {
        return counts;
    }

    /**
     * Tries {@code record} once, its dedup id read by {@code keys} (at each attempt, as a
     * redelivery would read it).
     *
     * @throws Error what the handler threw as an {@link Error}, its claim released first
     */
    Result attempt(ConsumerRecord<K, V> record, RecordKeys keys, String consumer) {
        String id;
        try {
            id = keys.keyOf(record);
            if (id == null) {
                return recoverMissing(record, new IllegalArgumentException(where(record) + " has no dedup key"));
            }
            InboxKey.of(consumer, id);
        } catch (RuntimeException e) {
            return recoverMissing(
                    record,
                    new IllegalArgumentException(where(record) + " has no valid dedup key: " + e.getMessage(), e));
        }
        Claim claim;
        try {
            claim = inbox.claim(id);
        } catch (InboxStoreException e) {
            counts.record(DeliveryOutcome.STORE_FAILED);
            LOG.log(
                    Level.WARNING,
                    "the inbox store could not claim " + where(record) + "; held and tried again after "
                            + failureBackoff,
                    e);
            return Result.retry(failureBackoff);
        }
        switch (claim.status()) {
            case DUPLICATE:
                counts.record(DeliveryOutcome.DUPLICATE);
                return Result.settle(AcknowledgeType.ACCEPT);
            case BUSY:
                // Held, not released: a release would count towards the group's delivery limit.
                counts.record(DeliveryOutcome.BUSY);
                return Result.retry(busyBackoff);
            default:
                break;
        }
        claim.keepRenewed();
        try {
            handler.handle(record);
        } catch (Exception e) {
            releaseQuietly(claim);
            return failed(record, e);
        } catch (Error e) {
            releaseQuietly(claim);
            throw e;
        }
        attempts.forget(where(record));
        complete(claim, record);
        counts.record(DeliveryOutcome.PROCESSED);
        return Result.settle(AcknowledgeType.ACCEPT);
    }

    private Result failed(ConsumerRecord<K, V> record, Exception failure) {
        String where = where(record);
        int failed = attempts.failed(where);
        FailurePolicy policy = attempts.policy();
        if (recoverer == null || !policy.givesUpAfter(failed)) {
            counts.record(DeliveryOutcome.FAILED);
            Duration after = policy.backoffAfter(failed);
            LOG.log(
                    Level.WARNING,
                    "the handler failed on " + where + " (attempt " + failed + "); held and tried again" + " after "
                            + after,
                    failure);
            return Result.retry(after);
        }
        try {
            recoverer.recover(record, failure);
        } catch (Exception e) {
            counts.record(DeliveryOutcome.FAILED);
            LOG.log(
                    Level.WARNING,
                    "the recoverer failed on " + where + "; held and tried again after " + failureBackoff,
                    e);
            return Result.retry(failureBackoff);
        }
        attempts.forget(where);
        counts.record(DeliveryOutcome.DEAD_LETTERED);
        return Result.settle(AcknowledgeType.ACCEPT);
    }

    private Result recoverMissing(ConsumerRecord<K, V> record, @Nullable IllegalArgumentException problem) {
        IllegalArgumentException why =
                problem == null ? new IllegalArgumentException(where(record) + " has no dedup key") : problem;
        if (missingKey == null) {
            // Never processed without dedup, never dropped: held until a key function or a
            // missing-key recoverer that can take it is deployed.
            LOG.log(
                    Level.ERROR,
                    why.getMessage() + "; it is held, not applied, and tried again after " + failureBackoff
                            + ". Choose where keys come from with keys(...), or handle such records with onMissingKey(...)");
            return Result.retry(failureBackoff);
        }
        try {
            missingKey.recover(record, why);
        } catch (Exception e) {
            LOG.log(
                    Level.WARNING,
                    "the missing-key recoverer failed on " + where(record) + "; held and tried again" + " after "
                            + failureBackoff,
                    e);
            return Result.retry(failureBackoff);
        }
        counts.record(DeliveryOutcome.DEAD_LETTERED);
        return Result.settle(AcknowledgeType.ACCEPT);
    }

    /**
     * Completes the claim of work that ran. A lost lease, or a store that cannot record the
     * completion, is logged and the record accepted all the same: the work ran.
     */
    private void complete(Claim claim, ConsumerRecord<K, V> record) {
        try {
            if (!claim.complete()) {
                LOG.log(
                        Level.WARNING,
                        "the lease of " + claim + " (" + where(record) + ") ended before its work was"
                                + " recorded, and another delivery took it over: make the lease longer than the slowest handler");
            }
        } catch (InboxStoreException e) {
            LOG.log(
                    Level.WARNING,
                    "the work of " + where(record) + " ran but its completion could not be recorded;"
                            + " the record is accepted",
                    e);
        }
    }

    private static void releaseQuietly(Claim claim) {
        try {
            claim.release();
        } catch (InboxStoreException e) {
            LOG.log(Level.WARNING, "could not release " + claim + "; its lease ends by itself", e);
        }
    }

    static String where(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
