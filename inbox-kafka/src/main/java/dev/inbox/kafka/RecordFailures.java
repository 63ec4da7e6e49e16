package dev.inbox.kafka;

import dev.inbox.DeliveryOutcome;
import dev.inbox.FailurePolicy;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * The Kafka loops' one decision for a record that could not be applied — its handler threw, or it
 * has no dedup key: try it again after a back-off, or hand it to a recoverer, after which it is done
 * (committed past, or accepted). {@link KafkaInboxLoop} and {@link KafkaShareInboxLoop} take it the
 * same way; only how each waits differs (a paused partition, a held record), and each loop says that
 * in {@code retried}, the phrase its log lines use.
 *
 * <p>A handler's failures are counted per record (topic, partition and offset), in memory, by the
 * {@link FailurePolicy}; without a recoverer nothing is given up on, whatever the policy says. A
 * failing recoverer is itself a failure tried again after the failure back-off. Not thread-safe:
 * each loop asks from one thread.
 */
final class RecordFailures<K, V> {

    /** The failed attempts after which a record goes to the recoverer, unless a failure policy says otherwise. */
    static final int DEFAULT_ATTEMPTS = 10;

    /** What to do with the record: {@code done} (recovered), or try it again after {@code retryAfter}. */
    record Decision(boolean done, Duration retryAfter) {

        static final Decision DONE = new Decision(true, Duration.ZERO);

        static Decision retry(Duration after) {
            return new Decision(false, after);
        }
    }

    private final System.Logger log;
    private final String retried;
    private final DeliveryCounts counts;
    private final Duration failureBackoff;
    private final FailurePolicy.Attempts attempts;
    private final @Nullable RecordRecoverer<K, V> recoverer;
    private final @Nullable RecordRecoverer<K, V> missingKey;

    /**
     * @param policy the user's failure policy; null for the default: {@link FailurePolicy#attempts
     *     attempts}({@value #DEFAULT_ATTEMPTS}, {@code failureBackoff}) with a recoverer, else
     *     {@link FailurePolicy#retryForever retryForever}({@code failureBackoff})
     * @param retried how the loop's log lines say a record will be tried again ("retried after")
     */
    RecordFailures(
            System.Logger log,
            String retried,
            DeliveryCounts counts,
            Duration failureBackoff,
            @Nullable FailurePolicy policy,
            @Nullable RecordRecoverer<K, V> recoverer,
            @Nullable RecordRecoverer<K, V> missingKey) {
        this.log = log;
        this.retried = retried;
        this.counts = counts;
        this.failureBackoff = failureBackoff;
        FailurePolicy chosen = policy;
        if (chosen == null) {
            chosen = recoverer == null
                    ? FailurePolicy.retryForever(failureBackoff)
                    : FailurePolicy.attempts(DEFAULT_ATTEMPTS, failureBackoff);
        }
        this.attempts = chosen.attemptsOf();
        this.recoverer = recoverer;
        this.missingKey = missingKey;
    }

    /** Whether records without a key have somewhere to go. */
    boolean recoversMissingKeys() {
        return missingKey != null;
    }

    /**
     * The handler threw {@code failure} on {@code record} (its claim released or its transaction
     * rolled back): counted as {@code FAILED} and tried again after the policy's back-off, or, once
     * the policy gives up and there is a recoverer, recovered ({@code DEAD_LETTERED}).
     */
    Decision handlerFailed(ConsumerRecord<K, V> record, Exception failure) {
        String where = where(record);
        int failed = attempts.failed(where);
        FailurePolicy policy = attempts.policy();
        if (recoverer == null || !policy.givesUpAfter(failed)) {
            counts.record(DeliveryOutcome.FAILED);
            Duration after = policy.backoffAfter(failed);
            log.log(
                    Level.WARNING,
                    "the handler failed on " + where + " (attempt " + failed
                            + (recoverer == null ? "" : " of " + policy.maxAttempts()) + "); " + retried + " " + after,
                    failure);
            return Decision.retry(after);
        }
        attempts.forget(where);
        return recover(recoverer, "recoverer", record, failure);
    }

    /**
     * {@code record} has no valid dedup key ({@code why}): handed to the missing-key recoverer.
     *
     * @throws IllegalStateException without a missing-key recoverer: each loop decides that case
     *     itself, before asking
     */
    Decision keyMissing(ConsumerRecord<K, V> record, IllegalArgumentException why) {
        if (missingKey == null) {
            throw new IllegalStateException("no missing-key recoverer: the loop decides " + where(record) + " itself");
        }
        return recover(missingKey, "missing-key recoverer", record, why);
    }

    /** {@code record} was applied or found a duplicate: its failed attempts, if any, are forgotten. */
    void succeeded(ConsumerRecord<K, V> record) {
        if (attempts.any()) {
            attempts.forget(where(record));
        }
    }

    private Decision recover(RecordRecoverer<K, V> with, String which, ConsumerRecord<K, V> record, Exception failure) {
        try {
            with.recover(record, failure);
        } catch (Exception e) {
            e.addSuppressed(failure);
            counts.record(DeliveryOutcome.FAILED);
            log.log(
                    Level.WARNING,
                    "the " + which + " failed on " + where(record) + "; " + retried + " " + failureBackoff,
                    e);
            return Decision.retry(failureBackoff);
        }
        counts.record(DeliveryOutcome.DEAD_LETTERED);
        return Decision.DONE;
    }

    /** A record's place, as the loops name it in logs and count its attempts under: {@code topic-partition@offset}. */
    static String where(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
