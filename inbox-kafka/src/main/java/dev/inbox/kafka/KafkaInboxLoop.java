package dev.inbox.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Claim;
import dev.inbox.Deliveries;
import dev.inbox.DeliveryOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.Processor.Batch;
import dev.inbox.kafka.Processor.Item;
import dev.inbox.kafka.Processor.Outcome;
import dev.inbox.kafka.Processor.SpanOutcome;
import dev.inbox.kafka.Processor.WorkFailed;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * A consumer loop around your {@link Consumer}: each {@link #pollOnce(Duration)} polls, claims the
 * records, runs your handler for the new events in partition order, and commits each partition's
 * offset only up to the first record that is not safely done.
 *
 * <pre>{@code
 * KafkaInboxLoop<String, String> loop = KafkaInboxLoop.lease(consumer, inbox, record -> mailer.send(record.value()))
 *         .keys(RecordKeys.header("event-id"))
 *         .build();
 * loop.subscribe(List.of("orders"));
 * loop.run(Duration.ofMillis(500)); // until loop.stop() from another thread; or call pollOnce yourself
 * }</pre>
 *
 * <p>Per record, by the claim's answer:
 *
 * <ul>
 *   <li>{@code DUPLICATE} — skipped, and its offset is committed with the rest.
 *   <li>{@code ACQUIRED} — the handler runs; on success the claim is completed (at once, or with
 *       the rest of its poll: {@link Builder#completePerPoll()}). If the handler throws, the
 *       claim is released and the record retried: the loop seeks back to it and pauses its
 *       partition for the {@linkplain Builder#failurePolicy failure policy}'s back-off; once the
 *       policy gives up on it (by default with a recoverer, after {@value RecordFailures#DEFAULT_ATTEMPTS} failed
 *       attempts) it is handed to the {@linkplain Builder#recoverer(RecordRecoverer) recoverer} and
 *       its offset committed. Without a recoverer it is retried for ever.
 *   <li>{@code BUSY} — another consumer is applying the event right now (and may still fail):
 *       nothing past it is committed; the loop seeks back to it and pauses its partition for the
 *       {@linkplain Builder#busyBackoff(Duration) busy backoff}, so other partitions go on.
 * </ul>
 *
 * <p>Records after a stopped one in the same partition are not applied in that poll (their claims
 * are released), so each partition is applied in order. A store that cannot answer stops the whole
 * poll: every partition is sought back and paused for the failure backoff; nothing is committed. A
 * record without a dedup key — the key function found none, threw, or returned an id the inbox
 * refuses (over 512 bytes) — goes to the {@linkplain Builder#onMissingKey(RecordRecoverer)
 * missing-key recoverer}, or (none set) makes {@code pollOnce} throw {@link IllegalStateException}
 * before anything of the poll is applied, its partitions paused for the failure backoff: never
 * processed without dedup, and never skipped.
 *
 * <p>Anything else thrown while a poll is applied — an {@link Error} from the handler, a failure
 * of the recoverer's own, a closed inbox — gives back the record in hand and every record after it
 * (sought back, their claims released, their partitions paused for the failure backoff), commits
 * what was done before it, and propagates: a caller that catches it and polls again loses nothing.
 *
 * <p>Offsets are committed with {@code commitSync} at the end of each poll; the consumer must have
 * {@code enable.auto.commit=false}. Nothing is held between polls, so a rebalance never finds a
 * claim in flight; a commit that failed (the group rebalanced meanwhile) is retried on the next
 * poll and when partitions are revoked, and records redelivered meanwhile are answered {@code
 * DUPLICATE}. Keep each poll's work within {@code max.poll.interval.ms}.
 *
 * <p>Not thread-safe, like the consumer it drives: call it from the consumer's thread.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
public final class KafkaInboxLoop<K, V> {

    private static final System.Logger LOG = System.getLogger(KafkaInboxLoop.class.getName());

    private final Consumer<K, V> consumer;
    private final Processor<K, V> processor;
    private final RecordKeys keys;
    private final Duration busyBackoff;
    private final Duration failureBackoff;
    /** What becomes of a record whose handler threw or that has no key: retried, or recovered. */
    private final RecordFailures<K, V> failures;
    /** How long the partition of a record that just failed waits before it is tried again. */
    private Duration retryAfter;

    private final PartitionPositions positions;
    private volatile boolean stopping;
    private final DeliveryCounts counts;

    private KafkaInboxLoop(Builder<K, V> builder) {
        this.consumer = builder.consumer;
        this.positions = new PartitionPositions(consumer);
        this.processor = builder.processor;
        this.counts = builder.counts;
        this.keys = builder.keys;
        this.busyBackoff = builder.busyBackoff;
        this.failureBackoff = builder.failureBackoff;
        this.failures = builder.failures(LOG, "retried after", counts);
        this.retryAfter = failureBackoff;
    }

    /**
     * A loop in lease mode: the records of a poll are claimed in one {@link dev.inbox.InboxClaims#claimAll} and
     * {@code handler} runs for the acquired ones. Each claim is kept renewed ({@link
     * Claim#keepRenewed()}) until its record is done, so a slow handler, or a big poll whose last
     * records start late, never lets its lease end with the record in hand.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> lease(Consumer<K, V> consumer, Inbox inbox, RecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                new LeaseProcessor<>(inbox, handler, false),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode: each record is claimed inside a database transaction together
     * with {@code handler}'s writes ({@link TransactionalInbox#handle}), and its offset is committed
     * after that transaction: exactly once, crashes included, for effects in that database.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> transactional(
            Consumer<K, V> consumer, TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                new TransactionalProcessor<>(inbox, handler, false),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode that applies each partition of a poll in <em>one</em> database
     * transaction ({@link TransactionalInbox#handleAll}): the partition's claims and {@code
     * handler}'s writes for its new events, one commit, then the offsets — one durable write per
     * partition of a poll instead of one per record, exactly once all the same. A BUSY record ends
     * its partition's transaction: what came before it commits, the partition waits for the busy
     * backoff at it. A handler that throws rolls back the partition's transaction, and that poll's
     * records of the partition are then applied one transaction each, as {@link #transactional}
     * does, so the failing record is retried or recovered alone and the others go on. A partition
     * with a record without a dedup key is applied record by record too.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> transactionalBatch(
            Consumer<K, V> consumer, TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                new TransactionalProcessor<>(inbox, handler, true),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * Subscribes the consumer to {@code topics} with this loop's {@link #rebalanceListener()}.
     *
     * @throws IllegalArgumentException if {@code topics} is null
     */
    public void subscribe(Collection<String> topics) {
        consumer.subscribe(requireNonNull(topics, "topics"), rebalanceListener());
    }

    /**
     * The listener to subscribe with when you subscribe yourself: on revocation it commits what a
     * failed commit left behind and forgets the revoked partitions' backoffs.
     */
    public ConsumerRebalanceListener rebalanceListener() {
        return positions.rebalanceListener();
    }

    /**
     * Polls once and handles what came, as the class describes.
     *
     * @return how many records are done (applied, duplicate or recovered) and committed or about to be
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws IllegalStateException if a record has no dedup key and no missing-key recoverer is
     *     set (nothing of the poll was applied or committed)
     */
    public int pollOnce(Duration timeout) {
        requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative but was " + timeout);
        }
        positions.beforePoll();
        ConsumerRecords<K, V> records = consumer.poll(timeout);
        if (records.isEmpty()) {
            return 0;
        }
        List<Item<K, V>> items = new ArrayList<>(records.count());
        List<Span> spans = new ArrayList<>(records.partitions().size());
        for (TopicPartition partition : records.partitions()) {
            int first = items.size();
            for (ConsumerRecord<K, V> record : records.records(partition)) {
                items.add(keyed(record));
            }
            spans.add(new Span(partition, first, items.size()));
        }
        refuseMissingKeys(spans, items);
        Batch<K, V> batch;
        try {
            batch = processor.claim(items);
        } catch (InboxStoreException e) {
            counts.record(DeliveryOutcome.STORE_FAILED, items.size());
            LOG.log(
                    Level.WARNING,
                    "the inbox store could not claim a poll of " + items.size()
                            + " records; every partition is sought back and retried after " + failureBackoff,
                    e);
            giveBack(spans, items, null, 0, failureBackoff);
            return 0;
        } catch (RuntimeException | Error e) {
            giveBack(spans, items, null, 0, failureBackoff);
            throw e;
        }
        return apply(spans, items, batch);
    }

    /**
     * Without a recoverer for them ({@code onMissingKey}), a record without a key stops the poll
     * before anything of it is claimed: every partition is sought back, nothing is skipped.
     *
     * @throws IllegalStateException naming the record's key problem
     */
    private void refuseMissingKeys(List<Span> spans, List<Item<K, V>> items) {
        if (failures.recoversMissingKeys()) {
            return;
        }
        for (Item<K, V> item : items) {
            if (item.id() == null) {
                giveBack(spans, items, null, 0, failureBackoff);
                throw new IllegalStateException(item.keyProblem().getMessage()
                        + "; nothing of this poll was applied, and its partitions wait " + failureBackoff
                        + ". Choose where keys come from with keys(...), or handle such records with"
                        + " onMissingKey(...)");
            }
        }
    }

    /**
     * Applies a claimed poll partition by partition and commits what is done. Whatever is thrown
     * out of it first gives back the record in hand and everything after it, so the caller may go
     * on polling without losing a record.
     */
    private int apply(List<Span> spans, List<Item<K, V>> items, Batch<K, V> batch) {
        int done = 0;
        int[] inHand = {0}; // the record being applied, for what is thrown
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        try {
            for (Span span : spans) {
                inHand[0] = span.first;
                int applied = stopping ? -1 : applyAll(span, items, offsets);
                done += applied >= 0 ? applied : applyEach(span, items, batch, offsets, inHand);
                inHand[0] = span.end;
            }
        } catch (RuntimeException | Error unexpected) {
            LOG.log(
                    Level.WARNING,
                    "applying " + where(items.get(inHand[0])) + " threw; it and the records after it are sought back,"
                            + " retried after " + failureBackoff + ", and what was done before it is committed",
                    unexpected);
            giveBack(spans, items, batch, inHand[0], failureBackoff);
            try {
                batch.finish();
                positions.commitDone(offsets);
            } catch (RuntimeException notCommitted) {
                unexpected.addSuppressed(notCommitted);
            }
            throw unexpected;
        }
        batch.finish();
        positions.commitDone(
                offsets); // outside the try: a wakeup here leaves the offsets uncommitted, nothing given back
        return done;
    }

    /**
     * Applies a partition's records one by one, in order, up to the first that is not done: it is
     * sought back (its partition paused for the busy or failure back-off) and the claims of the
     * records after it are given back. Returns how many are done; {@code inHand} follows the record
     * being applied.
     */
    private int applyEach(
            Span span,
            List<Item<K, V>> items,
            Batch<K, V> batch,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            int[] inHand) {
        int done = 0;
        for (int i = span.first; i < span.end; i++) {
            inHand[0] = i;
            if (stopping) {
                giveBack(span, items, batch, i, null);
                break;
            }
            Item<K, V> item = items.get(i);
            Outcome outcome = item.id() == null ? recoverMissing(item) : run(batch, i, item);
            if (outcome == Outcome.DONE) {
                done++;
                offsets.put(span.partition, new OffsetAndMetadata(item.record().offset() + 1));
                continue;
            }
            for (int rest = i + 1; rest < span.end; rest++) {
                batch.abandon(rest);
            }
            positions.giveBack(
                    span.partition, item.record().offset(), outcome == Outcome.BUSY ? busyBackoff : retryAfter);
            break;
        }
        return done;
    }

    /**
     * Applies a partition's records in one transaction when the processor batches and each has a
     * key, and returns how many are done (applied or duplicates); -1 when they are to be applied
     * record by record instead (no batching, a keyless record, or the batch's work failed and was
     * rolled back).
     */
    private int applyAll(Span span, List<Item<K, V>> items, Map<TopicPartition, OffsetAndMetadata> offsets) {
        List<Item<K, V>> inPartition = items.subList(span.first, span.end);
        for (Item<K, V> item : inPartition) {
            if (item.id() == null) {
                return -1;
            }
        }
        SpanOutcome outcome;
        try {
            outcome = processor.applyAll(inPartition);
        } catch (InboxStoreException e) {
            counts.record(DeliveryOutcome.STORE_FAILED, inPartition.size());
            LOG.log(
                    Level.WARNING,
                    "the inbox store failed on a transaction of " + inPartition.size() + " records of " + span.partition
                            + "; retried after " + failureBackoff,
                    e);
            positions.giveBack(span.partition, inPartition.get(0).record().offset(), failureBackoff);
            return 0;
        }
        if (outcome == null) {
            return -1;
        }
        counts.record(DeliveryOutcome.PROCESSED, outcome.processed());
        counts.record(DeliveryOutcome.DUPLICATE, outcome.duplicates());
        int done = outcome.processed() + outcome.duplicates();
        if (done > 0) {
            offsets.put(
                    span.partition,
                    new OffsetAndMetadata(inPartition.get(done - 1).record().offset() + 1));
        }
        if (done < inPartition.size()) { // stopped at a BUSY record
            counts.record(DeliveryOutcome.BUSY);
            positions.giveBack(span.partition, inPartition.get(done).record().offset(), busyBackoff);
        }
        return done;
    }

    /**
     * Gives back every record from item {@code from} on, in its partition and in the partitions
     * after it: each such partition is sought back to its first given-back record, its claims are
     * abandoned, and it is paused for {@code backoff} (not at all when null).
     */
    private void giveBack(
            List<Span> spans,
            List<Item<K, V>> items,
            @Nullable Batch<K, V> batch,
            int from,
            @Nullable Duration backoff) {
        for (Span span : spans) {
            if (span.end > from) {
                giveBack(span, items, batch, Math.max(from, span.first), backoff);
            }
        }
    }

    private void giveBack(
            Span span, List<Item<K, V>> items, @Nullable Batch<K, V> batch, int from, @Nullable Duration backoff) {
        if (from < span.end) {
            consumer.seek(span.partition, items.get(from).record().offset());
        }
        if (batch != null) {
            for (int i = from; i < span.end; i++) {
                batch.abandon(i);
            }
        }
        if (backoff != null) {
            positions.pause(span.partition, backoff);
        }
    }

    /**
     * Polls and handles until {@link #stop()} is called, then closes the consumer: the record in
     * hand is finished and its offset committed, the records of its poll not yet begun are given
     * back (their claims released, their offsets not committed), so the next owner of the
     * partitions starts with them. Call it on the consumer's thread; what {@link #pollOnce} throws
     * ends it (the consumer is closed then too).
     *
     * @param pollTimeout how long each poll waits for records, and so how long a stop may wait for
     *     the poll in progress
     * @throws IllegalArgumentException if {@code pollTimeout} is null or negative
     */
    public void run(Duration pollTimeout) {
        requireNonNull(pollTimeout, "pollTimeout");
        try {
            while (!stopping) {
                pollOnce(pollTimeout);
            }
            positions.commitLeftOver();
        } finally {
            consumer.close();
        }
    }

    /**
     * Asks the loop to stop after the record in hand: {@link #run(Duration)} returns once it is
     * done and committed, and {@link #pollOnce(Duration)} gives back the rest of its poll. Safe to
     * call from any thread, and more than once.
     */
    public void stop() {
        stopping = true;
    }

    /**
     * How many records this loop applied, skipped, found busy, failed, recovered, and could not
     * claim. Each record's outcome is also reported to the inbox's {@link InboxMetrics#delivered}
     * (the {@code inbox.deliveries} meter of {@code inbox-micrometer}).
     */
    public Deliveries counts() {
        return counts.snapshot();
    }

    private Item<K, V> keyed(ConsumerRecord<K, V> record) {
        String where = record.topic() + "-" + record.partition() + "@" + record.offset();
        try {
            String id = keys.keyOf(record);
            if (id == null) {
                return new Item<>(record, null, new IllegalArgumentException("record " + where + " has no dedup key"));
            }
            processor.validate(id);
            return new Item<>(record, id, null);
        } catch (RuntimeException e) {
            return new Item<>(
                    record,
                    null,
                    new IllegalArgumentException("record " + where + " has no valid dedup key: " + e.getMessage(), e));
        }
    }

    private Outcome run(Batch<K, V> batch, int index, Item<K, V> item) {
        Outcome outcome;
        try {
            outcome = batch.run(index);
        } catch (WorkFailed e) {
            return recover(item, e.work);
        } catch (InboxStoreException e) {
            counts.record(DeliveryOutcome.STORE_FAILED);
            LOG.log(Level.WARNING, "the inbox store failed on " + where(item) + "; retried after " + failureBackoff, e);
            retryAfter = failureBackoff;
            return Outcome.FAILED;
        }
        if (outcome != Outcome.BUSY) {
            failures.succeeded(item.record()); // a record that failed before succeeded, or was a duplicate
        }
        counts.record(
                outcome == Outcome.BUSY
                        ? DeliveryOutcome.BUSY
                        : outcome == Outcome.DUPLICATE ? DeliveryOutcome.DUPLICATE : DeliveryOutcome.PROCESSED);
        return outcome == Outcome.BUSY ? Outcome.BUSY : Outcome.DONE;
    }

    /**
     * A record whose handler threw: tried again after the failure policy's back-off, or handed to
     * the recoverer once the policy gives up on it (never without a recoverer).
     */
    private Outcome recover(Item<K, V> item, Exception failure) {
        return settle(failures.handlerFailed(item.record(), failure));
    }

    private Outcome recoverMissing(Item<K, V> item) {
        return settle(failures.keyMissing(item.record(), item.keyProblem()));
    }

    private Outcome settle(RecordFailures.Decision decision) {
        if (decision.done()) {
            return Outcome.DONE;
        }
        retryAfter = decision.retryAfter();
        return Outcome.FAILED;
    }

    /** A record's header of {@code name} as UTF-8 text (its last value), or null. */
    static @Nullable String header(ConsumerRecord<?, ?> record, String name) {
        org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null
                ? null
                : new String(header.value(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String where(Item<?, ?> item) {
        return item.record().topic() + "-" + item.record().partition() + "@"
                + item.record().offset() + " (" + item.id() + ")";
    }

    /** The items {@code first} (inclusive) to {@code end} (exclusive) of a poll: one partition's records. */
    private record Span(TopicPartition partition, int first, int end) {}

    /**
     * Configures a {@link KafkaInboxLoop}: the settings both Kafka loops share ({@link
     * KafkaLoopBuilder}) and {@link #completePerPoll()}. In this loop a record that waits — found
     * BUSY, its handler or the store failed — is sought back to and its partition paused for the
     * back-off, while the other partitions go on; a record without a key and without a missing-key
     * recoverer makes {@link KafkaInboxLoop#pollOnce(Duration)} throw, applying nothing of that poll.
     */
    public static final class Builder<K, V> extends KafkaLoopBuilder<K, V, Builder<K, V>> {

        private final Consumer<K, V> consumer;
        private Processor<K, V> processor;
        private final DeliveryCounts counts;

        private Builder(Consumer<K, V> consumer, Processor<K, V> processor, DeliveryCounts counts) {
            this.consumer = consumer;
            this.processor = processor;
            this.counts = counts;
        }

        @Override
        Builder<K, V> self() {
            return this;
        }

        /**
         * Lease mode: completes the claims of a poll's applied records together, in one {@link
         * dev.inbox.InboxClaims#completeAll} just before the poll's offsets are committed, instead of one completion
         * per record — one store round trip per poll. Until then the claims stay held (kept renewed).
         *
         * <p>The price is a wider crash window. Per record, a consumer that dies after a record's work
         * and before its completion applies that one record again once its lease ends. Completing per
         * poll, a consumer that dies anywhere in a poll has completed <em>none</em> of the records it
         * applied in that poll: once their leases end, the next owner of the partitions applies each
         * of them again — up to {@code max.poll.records} extra applications per crash. Choose it for
         * work that tolerates that; for effects in a database, {@link KafkaInboxLoop#transactionalBatch}
         * also takes a poll in one round of writes, and is exactly once. Anything thrown in a live loop (an {@link Error} from the handler, a stop)
         * still completes what was done before it.
         *
         * @throws IllegalStateException on a transactional loop, whose claims commit with their work
         */
        public Builder<K, V> completePerPoll() {
            this.processor = processor.completingPerPoll();
            return this;
        }

        /** Builds the loop; it does not touch the consumer until used. */
        public KafkaInboxLoop<K, V> build() {
            return new KafkaInboxLoop<>(this);
        }
    }
}
