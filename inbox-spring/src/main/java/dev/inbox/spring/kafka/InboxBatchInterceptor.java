package dev.inbox.spring.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.DeliveryOutcome;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spring.InboxBusyException;
import dev.inbox.spring.InboxClaim;
import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;

/**
 * Deduplicates the batches of a Spring Kafka batch listener: the listener receives only the
 * records whose event this delivery acquired. Install it with {@link InboxKafka#configure}.
 *
 * <p>Per batch, before the listener: one {@link SpringInbox#claimAll} for all the records (one
 * round trip in lease mode). Duplicates are left out of the batch the listener sees; their
 * offsets are committed with the batch's. A record whose event another delivery holds is claimed
 * again every busy back-off until it is not: it ends when the holder completes (then a
 * duplicate), fails (then acquired) or dies (its lease ends, then acquired), so keep the lease
 * shorter than {@code max.poll.interval.ms}; while one record waits, the batch waits. In lease
 * mode the batch's events are claimed in the order of their ids, and while one is waited for the
 * batch holds only the claims of the ids before it (the others are given back and claimed again
 * after the wait), so two batches holding each other's events never wait on each other for ever.
 * A batch that is entirely duplicates is skipped and committed.
 *
 * <p>After the listener: success completes every claim of the batch. A failure releases them,
 * so the error handler's retry claims the batch again at once; a {@link
 * BatchListenerFailedException} naming a record completes the claims of the records before it,
 * which the error handler commits, and releases the rest.
 *
 * <p>Name the failing record: a failure that is not a {@link BatchListenerFailedException} (an
 * {@code Error} included — wrap it) releases every claim of the batch, so in lease mode the records
 * the listener had already applied are applied again when the batch is redelivered. Each claim is
 * renewed until the batch ends ({@link dev.inbox.Claim#keepRenewed()}).
 *
 * <p>A record without a usable dedup key goes to the missing-key recoverer when one is given (see
 * {@link #InboxBatchInterceptor(SpringInbox, RecordKeys, Duration, ConsumerRecordRecoverer)}).
 * Without one, the batch fails before any work: with a {@link BatchListenerFailedException} naming
 * the record when it is the first of the batch (the error handler recovers it alone, or {@link
 * InboxKafka#errorHandler} stops the container), else with {@link MissingKeyException}, which
 * {@link InboxKafka#errorHandler} answers by stopping the container and which a {@code
 * DefaultErrorHandler} of your own answers by recovering every record of the batch — give such a
 * container a missing-key recoverer.
 *
 * <p>In transactional mode (see {@link InboxRecordInterceptor}) the claims are written in the
 * listener's transaction, one statement per record.
 */
public final class InboxBatchInterceptor<K, V> implements BatchInterceptor<K, V> {

    private static final Log LOG = LogFactory.getLog(InboxBatchInterceptor.class);

    private final SpringInbox inbox;
    private final RecordKeys keys;
    private final Duration busyBackoff;
    private final @Nullable ConsumerRecordRecoverer missingKeys;
    private final ThreadLocal<@Nullable Map<ConsumerRecord<K, V>, InboxClaim>> current = new ThreadLocal<>();
    private final ListenerCounts counts = new ListenerCounts();

    /**
     * An interceptor that claims each record's event in {@code inbox} under the dedup id {@code
     * keys} gives it, trying a busy record again every {@code busyBackoff}.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public InboxBatchInterceptor(SpringInbox inbox, RecordKeys keys, Duration busyBackoff) {
        this.inbox = requireNonNull(inbox, "inbox");
        this.keys = requireNonNull(keys, "keys");
        this.busyBackoff = requirePositive(busyBackoff, "busyBackoff");
        this.missingKeys = null;
    }

    /**
     * Like {@link #InboxBatchInterceptor(SpringInbox, RecordKeys, Duration)}, and hands each record
     * without a usable dedup key to {@code missingKeys} (a {@code DeadLetterPublishingRecoverer},
     * say) with its {@link MissingKeyException}, then leaves it out of the batch: it is committed with
     * the batch, never applied. Spring Kafka commits every record of a poll once the batch listener
     * returns, whatever an interceptor leaves out, so a batch interceptor can skip such a record
     * safely only by handing it somewhere first.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} not positive
     */
    public InboxBatchInterceptor(
            SpringInbox inbox, RecordKeys keys, Duration busyBackoff, ConsumerRecordRecoverer missingKeys) {
        this.inbox = requireNonNull(inbox, "inbox");
        this.keys = requireNonNull(keys, "keys");
        this.busyBackoff = requirePositive(busyBackoff, "busyBackoff");
        this.missingKeys = requireNonNull(missingKeys, "missingKeys");
    }

    @Override
    public @Nullable ConsumerRecords<K, V> intercept(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
        releaseAll(take(), null);
        List<ConsumerRecord<K, V>> all = new ArrayList<>(records.count());
        List<String> ids = new ArrayList<>(records.count());
        boolean first = true;
        for (ConsumerRecord<K, V> record : records) {
            String id;
            try {
                id = MissingKeyException.keyOf(keys, record, inbox.inbox().consumer());
            } catch (MissingKeyException missing) {
                if (missingKeys != null) {
                    missingKeys.accept(record, missing);
                    continue;
                }
                if (first) {
                    // Named, so the error handler recovers this record alone (or stops the container)
                    // and commits nothing: no record before it in this batch.
                    throw new BatchListenerFailedException(missing.getMessage(), missing, record);
                }
                throw missing;
            }
            first = false;
            all.add(record);
            ids.add(id);
        }
        if (all.isEmpty()) {
            return null; // every record was handed to the missing-key recoverer
        }
        Map<ConsumerRecord<K, V>, InboxClaim> held = new IdentityHashMap<>();
        List<@Nullable InboxClaim> claims = claimAll(ids);
        for (int i = 0; i < all.size(); i++) {
            InboxClaim claim = claims.get(i);
            if (claim != null && claim.isAcquired()) {
                held.put(all.get(i), claim);
            } else {
                counts.record(DeliveryOutcome.DUPLICATE, inbox);
            }
        }
        if (held.isEmpty()) {
            return null; // Spring Kafka commits a batch an interceptor skips
        }
        current.set(held);
        Map<TopicPartition, List<ConsumerRecord<K, V>>> kept = new LinkedHashMap<>();
        for (ConsumerRecord<K, V> record : all) {
            if (held.containsKey(record)) {
                kept.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), p -> new ArrayList<>())
                        .add(record);
            }
        }
        return new ConsumerRecords<>(kept, Map.of());
    }

    /**
     * Claims every id of the batch, waiting in place (every busy back-off) for one that another
     * delivery holds until it is not BUSY. In lease mode the ids are claimed in their sorted order,
     * and while one is waited for only the claims of the ids before it are held: those after it are
     * given back and claimed again after the wait. A batch that waited holding all its other claims
     * could wait for ever on a batch that waits on one of them (the same two events in two
     * partitions, in opposite orders); a waiter that holds only smaller ids than the one it waits
     * for cannot close such a cycle. In transactional mode the claims are rows of the listener's
     * transaction, which cannot be given back: they stay while it waits (BUSY there comes only from
     * a lease-mode delivery of the same event).
     *
     * @return each id's claim, in the order of {@code ids}; null for a repeat of an id earlier in the
     *     batch (a duplicate)
     */
    private List<@Nullable InboxClaim> claimAll(List<String> ids) {
        int n = ids.size();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (!inbox.joinsTransaction()) {
            Arrays.sort(order, Comparator.comparing(ids::get)); // stable: a repeat after its first occurrence
        }
        List<Integer> claimed = new ArrayList<>(n); // positions in order, each id once
        for (int k = 0; k < n; k++) {
            if (inbox.joinsTransaction() || k == 0 || !ids.get(order[k]).equals(ids.get(order[k - 1]))) {
                claimed.add(order[k]);
            }
        }
        InboxClaim[] claims = new InboxClaim[n];
        try {
            int from = 0;
            while (from < claimed.size()) {
                List<String> rest = new ArrayList<>(claimed.size() - from);
                for (int k = from; k < claimed.size(); k++) {
                    rest.add(ids.get(claimed.get(k)));
                }
                List<InboxClaim> got = inbox.claimAll(rest);
                int busy = 0;
                while (busy < got.size() && got.get(busy).status() != ClaimStatus.BUSY) {
                    claims[claimed.get(from + busy)] = got.get(busy);
                    busy++;
                }
                if (busy == got.size()) {
                    break;
                }
                boolean giveBack = !inbox.joinsTransaction();
                for (int k = busy + 1; k < got.size(); k++) {
                    if (giveBack && got.get(k).isAcquired()) {
                        got.get(k).release(); // claimed again after the wait
                    } else if (!giveBack) {
                        claims[claimed.get(from + k)] = got.get(k);
                    }
                }
                InboxClaim waited = got.get(busy);
                while (waited.status() == ClaimStatus.BUSY) {
                    counts.record(DeliveryOutcome.BUSY, inbox);
                    pause(waited.id());
                    waited = inbox.claim(waited.id());
                }
                claims[claimed.get(from + busy)] = waited;
                from = giveBack ? from + busy + 1 : claimed.size();
            }
        } catch (RuntimeException | Error e) {
            for (InboxClaim claim : claims) {
                if (claim != null && claim.isAcquired()) {
                    claim.giveBack(e); // claiming failed midway: nothing ran
                }
            }
            throw e;
        }
        return Arrays.asList(claims);
    }

    @Override
    public void success(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
        Map<ConsumerRecord<K, V>, InboxClaim> held = take();
        if (held != null) {
            held.values().forEach(this::completed);
        }
    }

    @Override
    public void failure(ConsumerRecords<K, V> records, Exception exception, Consumer<K, V> consumer) {
        Map<ConsumerRecord<K, V>, InboxClaim> held = take();
        if (held == null) {
            return;
        }
        ConsumerRecord<?, ?> failed = failedRecord(exception, records);
        boolean beforeFailed = failed != null;
        for (ConsumerRecord<K, V> record : records) {
            InboxClaim claim = held.remove(record);
            boolean isFailed = record == failed || (failed != null && sameRecord(record, failed));
            if (isFailed) {
                beforeFailed = false;
            }
            if (claim != null) {
                if (beforeFailed) {
                    completed(claim); // the error handler commits the records before the failed one
                } else if (isFailed) {
                    claim.releaseAfterFailure(exception);
                } else {
                    claim.giveBack(exception); // after the failed record, or the failure names none
                }
            }
        }
        if (failed == null) {
            LOG.warn(
                    "the batch listener failed without naming a record (" + exception + "); the claims of its "
                            + records.count() + " records are released, so the next delivery runs them again",
                    exception);
        }
        releaseAll(held, exception);
    }

    @Override
    public void clearThreadState(Consumer<?, ?> consumer) {
        releaseAll(take(), null);
    }

    private void pause(String id) {
        try {
            Thread.sleep(busyBackoff.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InboxBusyException(id);
        }
    }

    private void completed(InboxClaim claim) {
        counts.record(DeliveryOutcome.PROCESSED, inbox);
        claim.completeAfterWork();
    }

    private @Nullable Map<ConsumerRecord<K, V>, InboxClaim> take() {
        Map<ConsumerRecord<K, V>, InboxClaim> held = current.get();
        current.remove();
        return held;
    }

    private static void releaseAll(@Nullable Map<?, InboxClaim> held, @Nullable Throwable cause) {
        if (held != null) {
            held.values().forEach(claim -> claim.giveBack(cause));
        }
    }

    /**
     * The record a {@link BatchListenerFailedException} names (by record or by its index in the
     * batch the listener saw), wherever it is in the cause chain; null when there is none.
     */
    private static @Nullable ConsumerRecord<?, ?> failedRecord(Throwable failure, ConsumerRecords<?, ?> batch) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BatchListenerFailedException named) {
                if (named.getRecord() != null) {
                    return named.getRecord();
                }
                int index = 0;
                for (ConsumerRecord<?, ?> record : batch) {
                    if (index++ == named.getIndex()) {
                        return record;
                    }
                }
                return null;
            }
        }
        return null;
    }

    private static boolean sameRecord(ConsumerRecord<?, ?> a, ConsumerRecord<?, ?> b) {
        return a.offset() == b.offset()
                && a.partition() == b.partition()
                && a.topic().equals(b.topic());
    }

    /** What this adapter did with the deliveries it saw. */
    public ListenerCounts counts() {
        return counts;
    }

    @Override
    public String toString() {
        return "InboxBatchInterceptor[" + inbox + "]";
    }
}
