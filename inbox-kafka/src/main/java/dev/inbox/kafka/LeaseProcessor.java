package dev.inbox.kafka;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.kafka.Processor.Batch;
import dev.inbox.kafka.Processor.Item;
import dev.inbox.kafka.Processor.Outcome;
import dev.inbox.kafka.Processor.WorkFailed;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/** Lease mode: one claimAll per poll; each claim completed after its work, or the poll's together. */
final class LeaseProcessor<K, V> implements Processor<K, V> {

    private static final System.Logger LOG = System.getLogger(KafkaInboxLoop.class.getName());
    private final Inbox inbox;
    private final RecordHandler<K, V> handler;
    private final boolean perPoll;
    private final String storeKind;

    LeaseProcessor(Inbox inbox, RecordHandler<K, V> handler, boolean perPoll) {
        this.inbox = inbox;
        this.handler = handler;
        this.perPoll = perPoll;
        this.storeKind = inbox.store().getClass().getSimpleName();
    }

    @Override
    public Processor<K, V> completingPerPoll() {
        return new LeaseProcessor<>(inbox, handler, true);
    }

    @Override
    public void validate(String id) {
        InboxKey.of(inbox.consumer(), id);
    }

    @Override
    public Batch<K, V> claim(List<Item<K, V>> items) {
        return new LeasedPoll(items, claimKeyed(items));
    }

    /**
     * Claims the poll's keyed records in one round trip; each acquired claim is kept renewed until
     * its work ends, however long the records before it take: the last record of a big poll begins
     * its work late, and a lease that ended meanwhile would let another delivery apply it too. One
     * renewal task serves the whole poll, and costs nothing until a third of the lease has passed.
     *
     * @return the claim of each record, null for a record without a key
     */
    private @Nullable Claim[] claimKeyed(List<Item<K, V>> items) {
        List<String> ids = new ArrayList<>(items.size());
        List<Integer> positions = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).id() != null) {
                ids.add(items.get(i).id());
                positions.add(i);
            }
        }
        List<Claim> claimed = inbox.claims().claimAll(ids);
        inbox.claims().keepRenewed(claimed);
        @Nullable Claim[] claims = new Claim[items.size()];
        for (int j = 0; j < claimed.size(); j++) {
            claims[positions.get(j)] = claimed.get(j);
        }
        return claims;
    }

    /** One poll's claims: each record's work run under its claim, then completed alone or with the poll's. */
    private final class LeasedPoll implements Batch<K, V> {

        private final List<Item<K, V>> items;
        private final @Nullable Claim[] claims;
        private final boolean[] ran;
        /** Per-poll completion: the claims whose work ran, completed together by {@link #finish()}. */
        private final List<Claim> done = new ArrayList<>();

        LeasedPoll(List<Item<K, V>> items, @Nullable Claim[] claims) {
            this.items = items;
            this.claims = claims;
            this.ran = new boolean[items.size()];
        }

        @Override
        public Outcome run(int index) throws WorkFailed {
            Claim claim = java.util.Objects.requireNonNull(claims[index], "a record without a key is never run");
            ConsumerRecord<K, V> record = items.get(index).record();
            // The record's own span, in the producer's trace (its headers): the poll's claimAll
            // is a span of its own, the work and a per-record completion are children of this.
            try (InboxObserver.Step receipt =
                    inbox.observer().receive(inbox.consumer(), "kafka", name -> KafkaInboxLoop.header(record, name))) {
                Outcome outcome = run(index, claim, record, items.get(index).id());
                receipt.outcome(outcome.name().toLowerCase(java.util.Locale.ROOT));
                return outcome;
            }
        }

        private Outcome run(int index, Claim claim, ConsumerRecord<K, V> record, @Nullable String id)
                throws WorkFailed {
            switch (claim.status()) {
                case DUPLICATE:
                    return Outcome.DUPLICATE;
                case BUSY:
                    return Outcome.BUSY;
                default:
                    break;
            }
            try (InboxObserver.Step work = inbox.observer().start("work", inbox.consumer(), id, storeKind)) {
                try {
                    handler.handle(record);
                    work.outcome("done");
                } catch (Exception e) {
                    work.outcome("failed");
                    work.error(e);
                    releaseQuietly(claim);
                    throw new WorkFailed(e);
                } catch (Error e) {
                    work.error(e);
                    releaseQuietly(claim);
                    throw e;
                }
            }
            ran[index] = true;
            if (perPoll) {
                done.add(claim); // kept renewed until finish()
            } else {
                complete(List.of(claim));
            }
            return Outcome.DONE;
        }

        @Override
        public void abandon(int index) {
            Claim claim = claims[index];
            if (claim != null && claim.isAcquired() && !ran[index]) {
                releaseQuietly(claim);
            }
        }

        @Override
        public void finish() {
            if (!done.isEmpty()) {
                complete(List.copyOf(done));
                done.clear();
            }
        }
    }

    /**
     * Completes claims whose work ran. A lost lease, or a store that cannot record the completion,
     * is logged: the offsets are committed all the same, since the work ran (a redelivery would
     * apply it again once the lease ends; a producer's re-send may still find the event unfinished).
     */
    private void complete(List<Claim> ran) {
        List<Boolean> recorded;
        try {
            recorded = perPoll
                    ? inbox.claims().completeAll(ran)
                    : List.of(ran.get(0).complete());
        } catch (InboxStoreException e) {
            LOG.log(
                    Level.WARNING,
                    "the work of " + (ran.size() == 1 ? ran.get(0) : ran.size() + " records")
                            + " ran but its completion could not be recorded; the offsets are committed",
                    e);
            return;
        }
        for (int i = 0; i < recorded.size(); i++) {
            if (!recorded.get(i)) {
                LOG.log(
                        Level.WARNING,
                        "the lease of " + ran.get(i) + " ended before its work was recorded, and another"
                                + " delivery took it over: make the lease longer than the slowest handler"
                                + (perPoll ? " (with completePerPoll(), than the slowest poll)" : ""));
            }
        }
    }

    private static void releaseQuietly(Claim claim) {
        try {
            claim.release();
        } catch (InboxStoreException e) {
            LOG.log(Level.WARNING, "could not release " + claim + "; its lease ends by itself", e);
        }
    }
}
