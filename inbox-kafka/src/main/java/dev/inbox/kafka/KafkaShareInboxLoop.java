package dev.inbox.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Deliveries;
import dev.inbox.Inbox;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.jspecify.annotations.Nullable;

/**
 * A consumer loop around your share-group {@link ShareConsumer} (KIP-932, "queues for Kafka"): each
 * record's event is claimed in the inbox, your handler runs for a new one, the outcome is recorded
 * — the claim completed ({@link #lease lease mode}) or the transaction of the claim and your writes
 * committed ({@link #transactional transactional mode}) — and only then is the record acknowledged
 * {@code ACCEPT}.
 *
 * <pre>{@code
 * // share.acknowledgement.mode=explicit; the group: share.renew.acknowledge.enable=true
 * KafkaShareInboxLoop<String, String> loop = KafkaShareInboxLoop.lease(shareConsumer, inbox, record -> mailer.send(record.value()))
 *         .keys(RecordKeys.header("event-id"))
 *         .build();
 * loop.subscribe(List.of("orders"));
 * loop.run(Duration.ofMillis(500)); // until loop.stop() from another thread
 * }</pre>
 *
 * <p>A share group hands each record to one member under a time-limited acquisition lock and takes
 * per-record acknowledgements; there are no offsets to commit, and a record released or left to
 * its lock's end is delivered again with its delivery count raised — at the group's {@code
 * share.delivery.count.limit} (5 by default) it is archived, gone. So this loop never releases a
 * record it is still responsible for. Per record, by the claim's answer:
 *
 * <ul>
 *   <li>{@code DUPLICATE} — acknowledged {@code ACCEPT}.
 *   <li>{@code ACQUIRED} — the handler runs on the loop's worker thread, the claim kept renewed; on
 *       success the claim is completed, then the record accepted. If the handler throws, the claim
 *       is released and the record <em>held</em> (its lock renewed) and tried again after the
 *       {@linkplain Builder#failurePolicy failure policy}'s back-off; once the policy gives up on it
 *       (with a {@linkplain Builder#recoverer recoverer} only) the recoverer gets it and the record is
 *       accepted. Without a recoverer it is retried for ever.
 *   <li>{@code BUSY} — another member is applying the event (and may still fail): held, and claimed
 *       again after the {@linkplain Builder#busyBackoff busy backoff}; never released, so waiting
 *       does not burn its delivery count.
 * </ul>
 *
 * <p>A store that cannot answer holds the record for the failure backoff, as BUSY does. A record
 * without a valid dedup key goes to the {@linkplain Builder#onMissingKey missing-key recoverer}, or
 * (none set) is held and logged at ERROR every failure backoff: never processed without dedup, and
 * never dropped. An {@link Error} thrown by the handler releases its claim, holds the record, and
 * is thrown out of {@link #pollOnce} once what was settled is acknowledged.
 *
 * <p><b>The acquisition lock.</b> Every record in hand — being worked on, waiting its turn, held
 * for a back-off — is renewed with {@code AcknowledgeType.RENEW} each third of the lock's duration
 * ({@link ShareConsumer#acquisitionLockTimeoutMs()}), so a slow handler never lets its record go
 * to another member. RENEW needs the group config {@code share.renew.acknowledge.enable=true}
 * (default false) and {@code share.acknowledgement.mode=explicit} on the consumer. Without it the
 * renewals fail (logged once, naming the setting): work longer than the lock lets the broker hand
 * the record out again, and that delivery finds the event BUSY or DUPLICATE (so it is still
 * applied once), but each such hand-over raises the record's delivery count.
 *
 * <p>Work runs on one worker thread of the loop's own, one record at a time (in the {@linkplain
 * #transactionalBatch batch form}, every record ready in hand in one transaction), while the calling
 * thread keeps polling (at least every third of the lock, so {@code max.poll.interval.ms} is never
 * the limit). Records acquired meanwhile wait their turn, renewed; bound them with the consumer's
 * {@code max.poll.records} and {@code share.acquire.mode=record_limit}.
 *
 * <p>Not thread-safe, like the consumer it drives: call {@code subscribe}, {@code pollOnce} and
 * {@code run} from one thread; {@link #stop()} from any. {@link #close()} ends the worker thread
 * (not the consumer, which is yours).
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
public final class KafkaShareInboxLoop<K, V> implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(KafkaShareInboxLoop.class.getName());

    /** The lock assumed until the consumer reports its own: the brokers' default. */
    private static final Duration DEFAULT_LOCK = Duration.ofSeconds(30);

    /** How long a poll waits while records are in hand: renewed records come back on a later poll. */
    private static final Duration HELD_POLL = Duration.ofMillis(100);

    private final ShareConsumer<K, V> consumer;
    private final RecordKeys keys;
    private final ShareAttempt<K, V> attempt;
    private final ExecutorService worker;
    /** The records in hand, by topic, partition and offset, in the order they came. */
    private final Map<String, Held<K, V>> held = new LinkedHashMap<>();

    /** The records the worker is on (several at once in the batch form), empty while it is idle. */
    private List<Held<K, V>> running = List.of();

    private @Nullable Future<List<ShareAttempt.Result>> work;
    private volatile boolean stopping;
    private boolean ackFailureLogged;

    private KafkaShareInboxLoop(Builder<K, V> builder) {
        this.consumer = builder.consumer;
        this.keys = builder.keys;
        this.attempt = new ShareAttempt<>(
                builder.work,
                builder.together,
                builder.inboxConsumer,
                builder.counts,
                builder.busyBackoff,
                builder.failureBackoff,
                builder.failures(LOG, "held and tried again after", builder.counts),
                () -> stopping);
        this.worker = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "inbox-share-work-" + builder.inboxConsumer);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A loop in lease mode: each record's event is claimed, kept renewed while {@code handler} runs,
     * and completed before the record is accepted. The records ready in hand are claimed together
     * ({@link dev.inbox.InboxClaims#claimAll}, one renewal task for their claims) and then worked one
     * after another, each completed as soon as its handler returns; a loop that is stopping
     * releases the claims of those not begun.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> lease(ShareConsumer<K, V> consumer, Inbox inbox, RecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                ShareAttempt.lease(inbox, requireNonNull(handler, "handler")),
                ShareAttempt.claimedTogether(inbox, handler),
                inbox.consumer(),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode: each record's event is claimed inside a database transaction
     * together with {@code handler}'s writes ({@link TransactionalInbox#handle}), and the record is
     * accepted after that transaction committed: exactly once for effects in that database,
     * crashes and lapsed locks included. A handler that throws rolls the transaction back, and the
     * record is held and retried as in lease mode.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> transactional(
            ShareConsumer<K, V> consumer, TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                ShareAttempt.transactional(inbox, requireNonNull(handler, "handler")),
                null,
                inbox.consumer(),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * A loop in transactional mode that applies the records ready in hand <em>together</em>, in
     * one database transaction ({@link TransactionalInbox#handleAll}): their claims and {@code
     * handler}'s writes for the new events, one commit, then each record accepted — one durable
     * write per poll instead of one per record, exactly once all the same. A share group keeps no
     * order, so a BUSY record ends the transaction only for itself: what came before it commits, it
     * is held for the busy backoff, and the records after it go into the next transaction at once.
     * A handler that throws rolls the transaction back, and its records are then applied one
     * transaction each, as {@link #transactional} does, so the failing record is retried or
     * recovered alone and the others go on. A record without a valid dedup key is taken alone, as
     * in the other forms. How many go into one transaction is bounded by the records in hand: the
     * consumer's {@code max.poll.records} with {@code share.acquire.mode=record_limit}.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> Builder<K, V> transactionalBatch(
            ShareConsumer<K, V> consumer, TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler) {
        requireNonNull(inbox, "inbox");
        requireNonNull(handler, "handler");
        return new Builder<>(
                requireNonNull(consumer, "consumer"),
                ShareAttempt.transactional(inbox, handler),
                ShareAttempt.inOneTransaction(new TransactionalProcessor<>(inbox, handler, true)),
                inbox.consumer(),
                new DeliveryCounts(inbox.consumer(), inbox.metrics()));
    }

    /**
     * Subscribes the consumer to {@code topics}.
     *
     * @throws IllegalArgumentException if {@code topics} is null
     */
    public void subscribe(Collection<String> topics) {
        consumer.subscribe(requireNonNull(topics, "topics"));
    }

    /**
     * Polls, works on the records in hand until a third of the acquisition lock has passed or none
     * is left to work on, then acknowledges what is settled and renews the rest.
     *
     * @return how many records were acknowledged as done (applied, duplicate or recovered)
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws Error what the handler threw as an {@code Error}, after the settled records were acknowledged
     */
    public int pollOnce(Duration timeout) {
        requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative but was " + timeout);
        }
        ConsumerRecords<K, V> records =
                consumer.poll(held.isEmpty() ? timeout : (timeout.compareTo(HELD_POLL) < 0 ? timeout : HELD_POLL));
        for (ConsumerRecord<K, V> record : records) {
            String position = ShareAttempt.where(record);
            Held<K, V> known = held.get(position);
            if (known != null) {
                known.record = record; // a renewed record, returned again
                known.acknowledgeable = true;
            } else {
                held.put(position, new Held<>(record));
            }
        }
        forgetLapsed();
        if (held.isEmpty()) {
            return 0;
        }
        RuntimeException failed = null;
        Error thrown = null;
        try {
            thrown = workUntil(System.nanoTime() + renewEvery().toNanos());
        } catch (RuntimeException e) {
            failed = e; // every record the poll returned is acknowledged first, or the next poll refuses
        }
        int done = acknowledge();
        if (thrown != null) {
            throw thrown;
        }
        if (failed != null) {
            throw failed;
        }
        return done;
    }

    /**
     * Calls {@link #pollOnce} until {@link #stop()}, then finishes the record in hand, accepts what
     * is settled, releases the records not begun, and returns (the consumer stays open).
     *
     * @throws IllegalArgumentException if {@code pollTimeout} is null or negative
     */
    public void run(Duration pollTimeout) {
        requireNonNull(pollTimeout, "pollTimeout");
        while (!stopping) {
            pollOnce(pollTimeout);
        }
        long deadline = System.nanoTime() + renewEvery().toNanos() * 3;
        while (!held.isEmpty() && System.nanoTime() - deadline < 0) {
            pollOnce(HELD_POLL);
        }
        commit();
    }

    /** Makes {@link #run} finish the record in hand and return; callable from any thread. */
    public void stop() {
        stopping = true;
    }

    /** The deliveries this loop has seen, by outcome. */
    public Deliveries counts() {
        return attempt.counts().snapshot();
    }

    /** Ends the worker thread, interrupting work still running; the consumer is left to its owner. */
    @Override
    public void close() {
        worker.shutdownNow();
    }

    /**
     * Forgets the records renewed a whole lock ago that no poll has returned since: the broker did
     * not renew them (renewals off, a lock already lapsed) and may have handed them to another member.
     * One whose work is done is answered DUPLICATE wherever it comes again; one not begun is another
     * member's now.
     */
    private void forgetLapsed() {
        long lock = renewEvery().toNanos() * 3;
        long now = System.nanoTime();
        held.values().removeIf(h -> !h.acknowledgeable && !running.contains(h) && now - h.renewedAt > lock);
    }

    /**
     * Runs the records in hand on the worker — one at a time, or in the batch form every ready one
     * together — until {@code deadline} or until none is ready; returns an {@link Error} the handler
     * threw, if any.
     */
    private @Nullable Error workUntil(long deadline) {
        while (true) {
            if (work == null && !stopping) {
                List<Held<K, V>> next = ready();
                if (!next.isEmpty()) {
                    running = next;
                    List<ConsumerRecord<K, V>> records = new ArrayList<>(next.size());
                    next.forEach(h -> records.add(h.record));
                    work = worker.submit(() -> attempt.attemptAll(records, keys));
                }
            }
            long now = System.nanoTime();
            if (work == null) {
                long wake = Math.min(deadline, earliestRetry());
                if (held.values().stream().allMatch(h -> h.settled != null) || wake - now <= 0 || stopping) {
                    return null;
                }
                sleepNanos(wake - now);
                continue;
            }
            if (deadline - now <= 0) {
                return null;
            }
            try {
                settle(work.get(deadline - now, TimeUnit.NANOSECONDS));
            } catch (TimeoutException stillWorking) {
                return null;
            } catch (ExecutionException e) {
                List<Held<K, V>> failed = finishWork();
                failed.forEach(h -> h.notBefore = System.nanoTime());
                if (e.getCause() instanceof Error error) {
                    return error;
                }
                throw new IllegalStateException(
                        "the attempt at " + ShareAttempt.where(failed.get(0).record) + " failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.apache.kafka.common.errors.InterruptException(e);
            }
        }
    }

    private void settle(List<ShareAttempt.Result> results) {
        List<Held<K, V>> done = finishWork();
        for (int i = 0; i < done.size(); i++) {
            ShareAttempt.Result result = results.get(i);
            if (result.type() != null) {
                done.get(i).settled = result.type();
            } else {
                done.get(i).notBefore = System.nanoTime() + result.retryAfter().toNanos();
            }
        }
    }

    private List<Held<K, V>> finishWork() {
        List<Held<K, V>> done = running;
        running = List.of();
        work = null;
        return done;
    }

    /** The records to work on next: the first ready one, or in the batch form every ready one. */
    private List<Held<K, V>> ready() {
        long now = System.nanoTime();
        List<Held<K, V>> ready = new ArrayList<>();
        for (Held<K, V> h : held.values()) {
            if (h.settled == null && now - h.notBefore >= 0) {
                ready.add(h);
                if (!attempt.batches()) {
                    break;
                }
            }
        }
        return ready;
    }

    private long earliestRetry() {
        long earliest = Long.MAX_VALUE;
        long now = System.nanoTime();
        for (Held<K, V> h : held.values()) {
            if (h.settled == null) {
                earliest = Math.min(earliest, Math.max(now, h.notBefore));
            }
        }
        return earliest;
    }

    /**
     * Acknowledges every record the last poll returned: settled ones with their type, ones not begun
     * while stopping with RELEASE, the rest with RENEW; then commits the acknowledgements.
     */
    private int acknowledge() {
        int done = 0;
        boolean any = false;
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Held<K, V>> entry : held.entrySet()) {
            Held<K, V> h = entry.getValue();
            if (!h.acknowledgeable) {
                continue;
            }
            any = true;
            if (h.settled != null) {
                consumer.acknowledge(h.record, h.settled);
                gone.add(entry.getKey());
                done++;
            } else if (stopping && !running.contains(h)) {
                consumer.acknowledge(h.record, AcknowledgeType.RELEASE);
                gone.add(entry.getKey());
            } else {
                consumer.acknowledge(h.record, AcknowledgeType.RENEW);
                h.acknowledgeable = false; // until a poll returns it again
                h.renewedAt = System.nanoTime();
            }
        }
        gone.forEach(held::remove);
        if (any) {
            commit();
        }
        return done;
    }

    private void commit() {
        Map<TopicIdPartition, Optional<KafkaException>> result;
        try {
            result = consumer.commitSync();
        } catch (KafkaException e) {
            LOG.log(
                    Level.WARNING,
                    "committing acknowledgements failed; settled records may be delivered again"
                            + " (answered DUPLICATE)",
                    e);
            return;
        }
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> entry : result.entrySet()) {
            if (entry.getValue().isPresent() && !ackFailureLogged) {
                // Once per loop: with renewals off, every renewal fails, each poll.
                ackFailureLogged = true;
                LOG.log(
                        Level.WARNING,
                        "acknowledgements on " + entry.getKey() + " failed (logged once): renewals need the group"
                                + " config share.renew.acknowledge.enable=true. A record whose lock ended is delivered"
                                + " again, its delivery count raised; the inbox answers that delivery BUSY or DUPLICATE",
                        entry.getValue().get());
            }
        }
    }

    private Duration renewEvery() {
        return consumer.acquisitionLockTimeoutMs()
                .map(ms -> Duration.ofMillis(Math.max(1, ms / 3)))
                .orElse(DEFAULT_LOCK.dividedBy(3));
    }

    private static void sleepNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(100)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        }
    }

    /** A record in hand: the object the last poll returned for it, and where its work stands. */
    private static final class Held<K, V> {
        ConsumerRecord<K, V> record;
        /** Returned by the last poll and not acknowledged since: the client takes an acknowledgement for it. */
        boolean acknowledgeable = true;
        /** How it is to be acknowledged once its work is over; null while it is not. */
        @Nullable
        AcknowledgeType settled;
        /** Not tried again before this {@link System#nanoTime()}. */
        long notBefore = System.nanoTime();
        /** When it was last renewed ({@link System#nanoTime()}). */
        long renewedAt;

        Held(ConsumerRecord<K, V> record) {
            this.record = record;
        }
    }

    /**
     * Configures a {@link KafkaShareInboxLoop} with the settings both Kafka loops share ({@link
     * KafkaLoopBuilder}). In this loop a record that waits — found BUSY, its handler or the store
     * failed — is held, its acquisition lock renewed, and tried again in place after the back-off,
     * never released; a record without a key and without a missing-key recoverer is held likewise
     * (never applied, never dropped) and logged at ERROR.
     */
    public static final class Builder<K, V> extends KafkaLoopBuilder<K, V, Builder<K, V>> {

        private final ShareConsumer<K, V> consumer;
        private final ShareAttempt.Work<K, V> work;
        private final ShareAttempt.@Nullable Together<K, V> together;
        private final String inboxConsumer;
        private final DeliveryCounts counts;

        private Builder(
                ShareConsumer<K, V> consumer,
                ShareAttempt.Work<K, V> work,
                ShareAttempt.@Nullable Together<K, V> together,
                String inboxConsumer,
                DeliveryCounts counts) {
            this.consumer = consumer;
            this.work = work;
            this.together = together;
            this.inboxConsumer = inboxConsumer;
            this.counts = counts;
        }

        @Override
        Builder<K, V> self() {
            return this;
        }

        /** Builds the loop; it does not touch the consumer until used. */
        public KafkaShareInboxLoop<K, V> build() {
            return new KafkaShareInboxLoop<>(this);
        }
    }
}
