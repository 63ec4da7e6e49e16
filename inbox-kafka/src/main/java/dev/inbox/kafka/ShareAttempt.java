package dev.inbox.kafka;

import dev.inbox.Claim;
import dev.inbox.DeliveryOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.DeliveryCounts;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * One attempt at one share-group record, on the loop's worker thread: read its id, apply its event
 * as the mode does ({@link Work}), and answer how the record is to be acknowledged — or when it is
 * to be tried again, held meanwhile. It never answers {@code RELEASE}: a released
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

    /**
     * What an attempt at several records, each with its id, does: claim and work, as the mode does
     * it, with {@code attempt}'s counts, failure policy and back-offs.
     */
    @FunctionalInterface
    interface Together<K, V> {
        /**
         * @return one result per item, in their order
         * @throws Error what a handler threw as an {@code Error}, every claim it held released
         */
        List<Result> attempt(ShareAttempt<K, V> attempt, List<Processor.Item<K, V>> items);
    }

    /** What one attempt does once the record has its id: claim and work, as the mode does it. */
    @FunctionalInterface
    interface Work<K, V> {
        /**
         * Applies the event of {@code record} unless it is applied or held elsewhere.
         *
         * @throws InboxStoreException when the store could not answer (nothing was applied)
         * @throws Exception what the handler threw (its claim released, or its transaction rolled back)
         */
        ClaimStatus run(ConsumerRecord<K, V> record, String id) throws Exception;
    }

    private final Work<K, V> work;
    /** How several records are tried at once; null: one at a time. */
    private final @Nullable Together<K, V> together;

    private final String consumer;
    private final DeliveryCounts counts;
    private final Duration busyBackoff;
    private final Duration failureBackoff;
    private final RecordFailures<K, V> failures;
    /** True once the loop is stopping: records claimed together and not begun are given back. */
    private final BooleanSupplier stopping;

    ShareAttempt(
            Work<K, V> work,
            @Nullable Together<K, V> together,
            String consumer,
            DeliveryCounts counts,
            Duration busyBackoff,
            Duration failureBackoff,
            RecordFailures<K, V> failures,
            BooleanSupplier stopping) {
        this.work = work;
        this.together = together;
        this.consumer = consumer;
        this.counts = counts;
        this.busyBackoff = busyBackoff;
        this.failureBackoff = failureBackoff;
        this.failures = failures;
        this.stopping = stopping;
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
    Result attempt(ConsumerRecord<K, V> record, RecordKeys keys) {
        return attempt(item(record, keys));
    }

    /** {@code record} with its dedup id read by {@code keys}, or with why it has no valid one. */
    private Processor.Item<K, V> item(ConsumerRecord<K, V> record, RecordKeys keys) {
        try {
            String id = keys.keyOf(record);
            if (id == null) {
                return new Processor.Item<>(
                        record, null, new IllegalArgumentException(where(record) + " has no dedup key"));
            }
            InboxKey.of(consumer, id);
            return new Processor.Item<>(record, id, null);
        } catch (RuntimeException e) {
            return new Processor.Item<>(
                    record,
                    null,
                    new IllegalArgumentException(where(record) + " has no valid dedup key: " + e.getMessage(), e));
        }
    }

    /** Tries a record whose key was read once for this attempt. */
    private Result attempt(Processor.Item<K, V> item) {
        ConsumerRecord<K, V> record = item.record();
        String id = item.id();
        if (id == null) {
            return recoverMissing(record, java.util.Objects.requireNonNull(item.keyProblem()));
        }
        ClaimStatus status;
        try {
            status = work.run(record, id);
        } catch (InboxStoreException e) {
            counts.record(DeliveryOutcome.STORE_FAILED);
            LOG.log(
                    Level.WARNING,
                    "the inbox store could not claim " + where(record) + "; held and tried again after "
                            + failureBackoff,
                    e);
            return Result.retry(failureBackoff);
        } catch (Exception e) {
            return failed(record, e);
        }
        return claimed(status, record);
    }

    /** The result of a claim that answered {@code status}, its work (if it was new) done. */
    private Result claimed(ClaimStatus status, ConsumerRecord<K, V> record) {
        switch (status) {
            case DUPLICATE:
                failures.succeeded(record);
                counts.record(DeliveryOutcome.DUPLICATE);
                return Result.settle(AcknowledgeType.ACCEPT);
            case BUSY:
                // Held, not released: a release would count towards the group's delivery limit.
                counts.record(DeliveryOutcome.BUSY);
                return Result.retry(busyBackoff);
            default:
                failures.succeeded(record);
                counts.record(DeliveryOutcome.PROCESSED);
                return Result.settle(AcknowledgeType.ACCEPT);
        }
    }

    /** Whether {@link #attemptAll} applies several records at once. */
    boolean batches() {
        return together != null;
    }

    /**
     * Tries {@code records} once: those with a valid dedup id together, as this attempt's {@link
     * Together} does ({@link #inOneTransaction}, {@link #claimedTogether}), when it {@linkplain
     * #batches batches} and there are two or more of them; every other one alone, as {@link
     * #attempt} does. Each record's key is read once. A record the attempt left untried is to be
     * tried again at once ({@code retryAfter} zero).
     *
     * @return one result per record, in their order
     * @throws Error what the handler threw as an {@link Error}
     */
    List<Result> attemptAll(List<ConsumerRecord<K, V>> records, RecordKeys keys) {
        Result[] results = new Result[records.size()];
        List<Processor.Item<K, V>> keyed = new ArrayList<>(records.size());
        List<Integer> at = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            Processor.Item<K, V> item = item(records.get(i), keys); // read once per attempt, as a delivery
            if (item.id() == null || together == null) {
                results[i] = attempt(item);
            } else {
                keyed.add(item);
                at.add(i);
            }
        }
        if (keyed.size() == 1) {
            results[at.get(0)] = attempt(keyed.get(0));
        } else if (!keyed.isEmpty()) {
            List<Result> together =
                    java.util.Objects.requireNonNull(this.together).attempt(this, keyed);
            for (int i = 0; i < keyed.size(); i++) {
                results[at.get(i)] = together.get(i);
            }
        }
        return Arrays.asList(results);
    }

    /**
     * Transactional mode's batch form: the items' claims and the handler's writes in one
     * transaction ({@link Processor#applyAll}). A transaction that stopped at a BUSY record leaves
     * the records after it to be tried again at once; one whose work failed was rolled back, and its
     * records are tried one at a time, so that the failing one fails alone.
     */
    static <K, V> Together<K, V> inOneTransaction(Processor<K, V> transaction) {
        return (attempt, items) -> attempt.applyTogether(transaction, items);
    }

    private List<Result> applyTogether(Processor<K, V> transaction, List<Processor.Item<K, V>> items) {
        List<Result> results = new ArrayList<>(items.size());
        Processor.SpanOutcome outcome;
        try {
            outcome = transaction.applyAll(items);
        } catch (InboxStoreException e) {
            return storeFailed(items.size(), "a transaction of " + items.size() + " records", e);
        }
        if (outcome == null) { // rolled back
            items.forEach(item -> results.add(attempt(item)));
            return results;
        }
        counts.record(DeliveryOutcome.PROCESSED, outcome.processed());
        counts.record(DeliveryOutcome.DUPLICATE, outcome.duplicates());
        int done = outcome.processed() + outcome.duplicates();
        for (int i = 0; i < items.size(); i++) {
            if (i < done) {
                failures.succeeded(items.get(i).record());
                results.add(Result.settle(AcknowledgeType.ACCEPT));
            } else if (i == done) { // the BUSY one the transaction stopped at: held, as attempt does
                counts.record(DeliveryOutcome.BUSY);
                results.add(Result.retry(busyBackoff));
            } else {
                results.add(Result.retry(Duration.ZERO));
            }
        }
        return results;
    }

    /**
     * Lease mode, several records at once: their events claimed together ({@link
     * dev.inbox.InboxClaims#claimAll}) and kept renewed by one task, then each new one's handler
     * run and its claim completed (or released, if the handler throws) before the next one's, as
     * {@link #lease} does for one: one store call and one renewal task for the records in hand
     * instead of one each.
     */
    static <K, V> Together<K, V> claimedTogether(Inbox inbox, RecordHandler<K, V> handler) {
        return (attempt, items) -> attempt.claimTogether(inbox, handler, items);
    }

    private List<Result> claimTogether(Inbox inbox, RecordHandler<K, V> handler, List<Processor.Item<K, V>> items) {
        List<String> ids = new ArrayList<>(items.size());
        items.forEach(item -> ids.add(item.id()));
        List<Claim> claims;
        try {
            claims = inbox.claims().claimAll(ids);
        } catch (InboxStoreException e) {
            return storeFailed(items.size(), items.size() + " records", e);
        }
        inbox.claims().keepRenewed(claims);
        List<Result> results = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            Claim claim = claims.get(i);
            ConsumerRecord<K, V> record = items.get(i).record();
            if (!claim.isAcquired()) {
                results.add(claimed(claim.status(), record));
                continue;
            }
            if (stopping.getAsBoolean()) { // not begun: its claim released, the record to be released
                releaseQuietly(claim);
                results.add(Result.retry(Duration.ZERO));
                continue;
            }
            try {
                handler.handle(record);
            } catch (Exception e) {
                releaseQuietly(claim);
                results.add(failed(record, e));
                continue;
            } catch (Error e) {
                for (Claim held : claims.subList(i, claims.size())) {
                    if (held.isAcquired()) {
                        releaseQuietly(held);
                    }
                }
                throw e;
            }
            complete(claim, record);
            results.add(claimed(ClaimStatus.ACQUIRED, record));
        }
        return results;
    }

    private List<Result> storeFailed(int records, String what, InboxStoreException e) {
        counts.record(DeliveryOutcome.STORE_FAILED, records);
        LOG.log(
                Level.WARNING,
                "the inbox store failed on " + what + "; held and tried again after " + failureBackoff,
                e);
        return java.util.Collections.nCopies(records, Result.retry(failureBackoff));
    }

    /**
     * Lease mode's work: claim, run {@code handler} for a new event with its claim kept renewed,
     * complete the claim (a completion that fails is logged: the work ran).
     */
    static <K, V> Work<K, V> lease(Inbox inbox, RecordHandler<K, V> handler) {
        return (record, id) -> {
            Claim claim = inbox.claims().claim(id);
            if (!claim.isAcquired()) {
                return claim.status();
            }
            claim.keepRenewed();
            try {
                handler.handle(record);
            } catch (Exception | Error e) {
                releaseQuietly(claim);
                throw e;
            }
            complete(claim, record);
            return ClaimStatus.ACQUIRED;
        };
    }

    /** Transactional mode's work: the claim and {@code handler}'s writes in one transaction. */
    static <K, V> Work<K, V> transactional(TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler) {
        return (record, id) -> switch (inbox.handle(id, connection -> handler.handle(record, connection))
                .outcome()) {
            case DUPLICATE -> ClaimStatus.DUPLICATE;
            case BUSY -> ClaimStatus.BUSY;
            default -> ClaimStatus.ACQUIRED;
        };
    }

    private Result failed(ConsumerRecord<K, V> record, Exception failure) {
        return settled(failures.handlerFailed(record, failure));
    }

    private Result recoverMissing(ConsumerRecord<K, V> record, IllegalArgumentException why) {
        if (!failures.recoversMissingKeys()) {
            // Never processed without dedup, never dropped: held until a key function or a
            // missing-key recoverer that can take it is deployed.
            LOG.log(
                    Level.ERROR,
                    why.getMessage() + "; it is held, not applied, and tried again after " + failureBackoff
                            + ". Choose where keys come from with keys(...), or handle such records with onMissingKey(...)");
            return Result.retry(failureBackoff);
        }
        return settled(failures.keyMissing(record, why));
    }

    private static Result settled(RecordFailures.Decision decision) {
        return decision.done() ? Result.settle(AcknowledgeType.ACCEPT) : Result.retry(decision.retryAfter());
    }

    /**
     * Completes the claim of work that ran. A lost lease, or a store that cannot record the
     * completion, is logged and the record accepted all the same: the work ran.
     */
    private static void complete(Claim claim, ConsumerRecord<?, ?> record) {
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
        return RecordFailures.where(record);
    }
}
