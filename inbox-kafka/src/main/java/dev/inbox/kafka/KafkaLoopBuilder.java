package dev.inbox.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.FailurePolicy;
import dev.inbox.spi.DeliveryCounts;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What both Kafka loops are configured with, the same way: where keys come from, how long a busy
 * event and a failure wait, the failure policy and the recoverers. {@link KafkaInboxLoop.Builder}
 * and {@link KafkaShareInboxLoop.Builder} add what is their own; each loop's class says how it waits
 * (a partition paused and sought back, or a share-group record held with its lock renewed). Each
 * setter checks its argument at once.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 * @param <B> the loop's own builder, which each setter returns
 */
public abstract sealed class KafkaLoopBuilder<K, V, B extends KafkaLoopBuilder<K, V, B>>
        permits KafkaInboxLoop.Builder, KafkaShareInboxLoop.Builder {

    RecordKeys keys = RecordKeys.standard();
    Duration busyBackoff = Duration.ofSeconds(1);
    Duration failureBackoff = Duration.ofSeconds(1);

    @Nullable
    RecordRecoverer<K, V> recoverer;

    @Nullable
    RecordRecoverer<K, V> missingKey;

    @Nullable
    FailurePolicy failurePolicy;

    KafkaLoopBuilder() {}

    abstract B self();

    /**
     * Where each record's dedup id comes from; default {@link RecordKeys#standard()} (a
     * CloudEvent's source + id, else the Debezium outbox {@code id} header).
     *
     * @throws IllegalArgumentException if null
     */
    public B keys(RecordKeys keys) {
        this.keys = requireNonNull(keys, "keys");
        return self();
    }

    /**
     * How long a record found BUSY (another consumer is applying its event right now, and may still
     * fail) waits before its event is claimed again; default 1 s.
     *
     * @throws IllegalArgumentException if null or not positive
     */
    public B busyBackoff(Duration busyBackoff) {
        this.busyBackoff = requirePositive(busyBackoff, "busyBackoff");
        return self();
    }

    /**
     * How long a record waits after the store failed, or (without a failure policy) after its
     * handler failed, before it is tried again; default 1 s.
     *
     * @throws IllegalArgumentException if null or not positive
     */
    public B failureBackoff(Duration failureBackoff) {
        this.failureBackoff = requirePositive(failureBackoff, "failureBackoff");
        return self();
    }

    /**
     * What to do with a record whose handler keeps failing (its claim released, or its transaction
     * rolled back, each time) once the {@linkplain #failurePolicy failure policy} gives up on it,
     * instead of retrying it until it succeeds: publish it to a dead-letter topic, for example; the
     * record is then done (committed past, or accepted). Default: none, retry for ever. With a
     * recoverer and no policy, a record goes to it after {@value RecordFailures#DEFAULT_ATTEMPTS}
     * failed attempts, {@link #failureBackoff} apart (as Spring Kafka's {@code
     * DefaultErrorHandler}), never at its first, perhaps transient, failure. A recoverer that
     * throws is a failure tried again after the failure back-off.
     *
     * @throws IllegalArgumentException if null
     */
    public B recoverer(RecordRecoverer<K, V> recoverer) {
        this.recoverer = requireNonNull(recoverer, "recoverer");
        return self();
    }

    /**
     * How a record whose handler threw is retried: the back-off before each new attempt and the
     * failed attempts after which it goes to the {@linkplain #recoverer recoverer}. Without a
     * recoverer nothing is given up on, whatever the policy says: only its back-off counts.
     * Default: {@link FailurePolicy#attempts attempts}({@value RecordFailures#DEFAULT_ATTEMPTS},
     * {@link #failureBackoff}) with a recoverer, else {@link FailurePolicy#retryForever
     * retryForever}({@link #failureBackoff}). Failed attempts are counted in memory, per record
     * (topic, partition and offset) of this loop.
     *
     * @throws IllegalArgumentException if null
     */
    public B failurePolicy(FailurePolicy failurePolicy) {
        this.failurePolicy = requireNonNull(failurePolicy, "failurePolicy");
        return self();
    }

    /**
     * What to do with a record that has no valid dedup key (the key function found none, threw, or
     * returned an id the inbox refuses); the record is then done. Default: none — a record is never
     * processed without dedup, and never skipped; each loop's class says what it does instead.
     *
     * @throws IllegalArgumentException if null
     */
    public B onMissingKey(RecordRecoverer<K, V> missingKey) {
        this.missingKey = requireNonNull(missingKey, "missingKey");
        return self();
    }

    /** The failure decision these settings make, for a loop that logs to {@code log}. */
    RecordFailures<K, V> failures(System.Logger log, String retried, DeliveryCounts counts) {
        return new RecordFailures<>(log, retried, counts, failureBackoff, failurePolicy, recoverer, missingKey);
    }
}
