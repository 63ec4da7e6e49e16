package dev.inbox.sqs;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** How a receive's messages go through the inbox: lease or transactional mode. */
interface Processor {

    /** The lease a claim holds outside a transaction; zero in transactional mode. */
    Duration lease();

    /**
     * How long a receive may hold its messages (claims and visibility renewed) before its renewals
     * stop: the inbox's {@link Inbox#maxInHand()} in lease mode, {@link #MAX_IN_HAND} in a
     * transaction.
     */
    Duration maxInHand();

    /** Counts a receive whose renewals stopped after {@link #maxInHand()}. */
    void renewalsAbandoned();

    /** {@link #maxInHand()} in transactional mode, the lease mode's default. */
    Duration MAX_IN_HAND = Duration.ofHours(1);

    /** How long a completed event's record suppresses duplicates. */
    Duration retention();

    /** Throws {@link IllegalArgumentException} if {@code id} cannot make a key of this inbox. */
    void validate(String id);

    /**
     * Starts observing the receipt of {@code message}, its trace context read from its attributes
     * ({@link InboxObserver#receive}); nothing by default — a receive handled in one transaction
     * (the batch processor) belongs to no one message's trace.
     */
    default InboxObserver.Step receive(SqsMessage message) {
        return InboxObserver.Step.NONE;
    }

    /** The receipt of {@code message} as {@code observer} observes it, its trace context read from its attributes. */
    static InboxObserver.Step receive(InboxObserver observer, String consumer, SqsMessage message) {
        return observer.receive(consumer, "sqs", name -> message.attributes().get(name));
    }

    /**
     * The dedup id {@code keys} gives {@code message}, or null (logged) when there is none, the key
     * function threw, or the id cannot make a key of this inbox.
     */
    default @Nullable String idOf(SqsKeys keys, SqsMessage message) {
        try {
            String id = keys.keyOf(message);
            if (id != null) {
                validate(id);
                return id;
            }
            System.getLogger(SqsInboxLoop.class.getName())
                    .log(System.Logger.Level.WARNING, message + " has no dedup key");
        } catch (RuntimeException invalid) {
            System.getLogger(SqsInboxLoop.class.getName())
                    .log(System.Logger.Level.WARNING, message + " has no usable dedup key: " + invalid, invalid);
        }
        return null;
    }

    /** The messages at {@code indexes}, in that order: those of a receive that have a key. */
    static List<SqsMessage> at(List<SqsMessage> messages, List<Integer> indexes) {
        List<SqsMessage> of = new ArrayList<>(indexes.size());
        indexes.forEach(i -> of.add(messages.get(i)));
        return of;
    }

    /**
     * Claims the events of a receive (lease mode) or prepares to claim each in its transaction.
     *
     * @param ids the events' dedup ids
     * @param messages the messages, in the same order
     * @throws InboxStoreException if the store could not answer: nothing was claimed
     */
    Batch claim(List<String> ids, List<SqsMessage> messages);

    /** What was claimed for one receive; indexes are positions in the ids given to {@link #claim}. */
    interface Batch {

        /**
         * Runs the work of one event if it is new.
         *
         * @throws InboxStoreException if the store could not answer (transactional mode)
         * @throws Exception what the work threw, its claim released or its transaction rolled back
         */
        HandleOutcome run(int index, SqsMessage message) throws Exception;

        /**
         * Claims a busy event again, and runs its work if it is now new: what {@link #run} does,
         * after another delivery held the event.
         *
         * @throws InboxStoreException if the store could not answer
         * @throws Exception what the work threw, its claim released or its transaction rolled back
         */
        HandleOutcome retry(int index, SqsMessage message) throws Exception;

        /** Gives an event back without its work: its claim released, if it holds one. */
        void giveBack(int index);

        /**
         * Before the loop waits in place on the event at {@code index} (busy, or the store down):
         * records what is done so far and lets go of the claims of the events after it, claimed
         * again when their turn comes. A consumer that waits then holds nothing another consumer
         * could be waiting on: two that each waited on an event the other's receive held would
         * never go on.
         */
        default void beforeWaiting(int index) {}

        /**
         * True when the event's outcome is already decided — committed with the receive's one
         * transaction — so that it must be run (to read that outcome), never given back.
         */
        default boolean decided(int index) {
            return false;
        }

        /** Extends the lease of an event still held (lease mode); a failure is only logged. */
        void renew(int index);

        /**
         * Records the work that ran as done (lease mode: one {@link dev.inbox.InboxClaims#completeAll}).
         *
         * @throws InboxStoreException if the store could not record it; the work ran
         */
        void complete();
    }

    /** Lease mode: one {@link dev.inbox.InboxClaims#claimAll} per receive, one {@link dev.inbox.InboxClaims#completeAll}. */
    final class LeaseProcessor implements Processor {
        private static final System.Logger LOG = System.getLogger(SqsInboxLoop.class.getName());
        private final Inbox inbox;
        private final SqsMessageHandler handler;

        private final String storeKind;

        LeaseProcessor(Inbox inbox, SqsMessageHandler handler) {
            this.inbox = inbox;
            this.handler = handler;
            this.storeKind = inbox.store().getClass().getSimpleName();
        }

        @Override
        public Duration lease() {
            return inbox.lease();
        }

        @Override
        public Duration maxInHand() {
            return inbox.maxInHand();
        }

        @Override
        public void renewalsAbandoned() {
            inbox.metrics().renewalsAbandoned(inbox.consumer());
        }

        @Override
        public Duration retention() {
            return inbox.retention();
        }

        @Override
        public void validate(String id) {
            InboxKey.of(inbox.consumer(), id);
        }

        @Override
        public InboxObserver.Step receive(SqsMessage message) {
            return Processor.receive(inbox.observer(), inbox.consumer(), message);
        }

        @Override
        public Batch claim(List<String> ids, List<SqsMessage> messages) {
            List<Claim> claims = new java.util.concurrent.CopyOnWriteArrayList<>(
                    inbox.claims().claimAll(ids));
            boolean[] open = new boolean[claims.size()];
            for (int i = 0; i < open.length; i++) {
                open[i] = claims.get(i).isAcquired();
            }
            List<Claim> done = new ArrayList<>();
            List<Integer> doneAt = new ArrayList<>();
            boolean[] reclaim = new boolean[claims.size()]; // given back before a wait: claimed again at its turn
            boolean[] recorded = new boolean[claims.size()]; // done and completed before the receive ends
            return new Batch() {
                @Override
                public HandleOutcome run(int index, SqsMessage message) throws Exception {
                    if (reclaim[index]) {
                        reclaim[index] = false;
                        Claim again =
                                inbox.claims().claimAll(List.of(ids.get(index))).get(0);
                        claims.set(index, again);
                        open[index] = again.isAcquired();
                    }
                    Claim claim = claims.get(index);
                    if (!claim.isAcquired()) {
                        return switch (claim.status()) {
                            case DUPLICATE -> HandleOutcome.DUPLICATE;
                            default -> HandleOutcome.BUSY;
                        };
                    }
                    try (InboxObserver.Step work =
                            inbox.observer().start("work", inbox.consumer(), ids.get(index), storeKind)) {
                        try {
                            handler.handle(message);
                            work.outcome("done");
                        } catch (Throwable failure) {
                            work.outcome("failed");
                            work.error(failure);
                            giveBack(index);
                            throw failure;
                        }
                    }
                    open[index] = false;
                    done.add(claim);
                    doneAt.add(index);
                    return HandleOutcome.PROCESSED;
                }

                @Override
                public void beforeWaiting(int index) {
                    if (!done.isEmpty()) {
                        try {
                            inbox.claims().completeAll(done);
                            doneAt.forEach(i -> recorded[i] = true);
                            done.clear();
                            doneAt.clear();
                        } catch (InboxStoreException notYet) {
                            LOG.log(
                                    System.Logger.Level.WARNING,
                                    "the work done so far could not be recorded before a wait; tried again at the end",
                                    notYet);
                        }
                    }
                    for (int k = index + 1; k < open.length; k++) {
                        if (open[k]) {
                            giveBack(k);
                            reclaim[k] = true;
                        }
                    }
                }

                @Override
                public HandleOutcome retry(int index, SqsMessage message) throws Exception {
                    Claim again =
                            inbox.claims().claimAll(List.of(ids.get(index))).get(0);
                    claims.set(index, again);
                    open[index] = again.isAcquired();
                    return run(index, message);
                }

                @Override
                public void giveBack(int index) {
                    if (open[index]) {
                        open[index] = false;
                        try {
                            claims.get(index).release();
                        } catch (InboxStoreException e) {
                            LOG.log(
                                    System.Logger.Level.WARNING,
                                    "a claim could not be released; its lease ends by itself",
                                    e);
                        }
                    }
                }

                @Override
                public void renew(int index) {
                    Claim claim = claims.get(index);
                    if (!claim.isAcquired() || recorded[index] || reclaim[index]) {
                        return;
                    }
                    try {
                        if (!claim.renew()) {
                            LOG.log(System.Logger.Level.WARNING, "the lease of " + claim + " was taken over");
                        }
                    } catch (InboxStoreException | IllegalStateException e) {
                        LOG.log(System.Logger.Level.WARNING, "renewing " + claim + " failed; tried again", e);
                    }
                }

                @Override
                public void complete() {
                    if (!done.isEmpty()) {
                        inbox.claims().completeAll(done);
                    }
                }
            };
        }
    }

    /** Transactional mode: each event claimed in the transaction of its work. */
    class TransactionalProcessor implements Processor {
        final TransactionalInbox inbox;
        final TransactionalSqsMessageHandler handler;

        TransactionalProcessor(TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
            this.inbox = inbox;
            this.handler = handler;
        }

        @Override
        public InboxObserver.Step receive(SqsMessage message) {
            return Processor.receive(inbox.observer(), inbox.consumer(), message);
        }

        /** One event in a transaction of its own. */
        HandleOutcome handleOne(String id, SqsMessage message) throws Exception {
            return inbox.handle(id, connection -> handler.handle(message, connection))
                    .outcome();
        }

        @Override
        public Duration lease() {
            return Duration.ZERO;
        }

        @Override
        public Duration maxInHand() {
            return MAX_IN_HAND;
        }

        @Override
        public void renewalsAbandoned() {
            inbox.metrics().renewalsAbandoned(inbox.consumer());
        }

        @Override
        public Duration retention() {
            return inbox.retention();
        }

        @Override
        public void validate(String id) {
            InboxKey.of(inbox.consumer(), id);
        }

        @Override
        public Batch claim(List<String> ids, List<SqsMessage> messages) {
            return new Batch() {
                @Override
                public HandleOutcome run(int index, SqsMessage message) throws Exception {
                    return handleOne(ids.get(index), message);
                }

                @Override
                public HandleOutcome retry(int index, SqsMessage message) throws Exception {
                    return handleOne(ids.get(index), message);
                }

                @Override
                public void giveBack(int index) {}

                @Override
                public void renew(int index) {}

                @Override
                public void complete() {}
            };
        }
    }

    /**
     * Transactional mode, one transaction per receive ({@link TransactionalInbox#handleAll}): the
     * claims and writes of every message, one commit. The transaction ends at the first busy
     * message (what came before commits; it and the rest are put back); work that throws rolls the
     * whole receive back, and its messages are then handled one transaction each, so the failing
     * one is retried alone.
     */
    final class TransactionalBatchProcessor extends TransactionalProcessor {

        TransactionalBatchProcessor(TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
            super(inbox, handler);
        }

        /** The receive's one transaction belongs to no one message's trace: its steps are their own. */
        @Override
        public InboxObserver.Step receive(SqsMessage message) {
            return InboxObserver.Step.NONE;
        }

        @Override
        public Batch claim(List<String> ids, List<SqsMessage> messages) {
            return new Batch() {
                private @Nullable List<HandleOutcome> outcomes; // null until tried, or after a rollback

                private @Nullable InboxStoreException storeDown;

                private boolean tried;

                @Override
                public HandleOutcome run(int index, SqsMessage message) throws Exception {
                    if (!tried) {
                        tried = true;
                        try {
                            outcomes = inbox.handleAll(
                                    ids, (i, connection) -> handler.handle(messages.get(i), connection));
                        } catch (InboxStoreException e) {
                            storeDown = e; // nothing committed: the whole receive is put back
                        } catch (Exception rolledBack) {
                            outcomes = null; // each alone from here on, so the failing one fails alone
                        }
                    }
                    if (storeDown != null) {
                        throw storeDown;
                    }
                    List<HandleOutcome> done = outcomes;
                    if (done == null) {
                        return handleOne(ids.get(index), message);
                    }
                    // handleAll answers up to and including the first BUSY; the rest were not claimed.
                    return index < done.size() ? done.get(index) : HandleOutcome.BUSY;
                }

                /** The receive's transaction is over: a busy event is tried again in a transaction of its own. */
                @Override
                public HandleOutcome retry(int index, SqsMessage message) throws Exception {
                    return handleOne(ids.get(index), message);
                }

                @Override
                public boolean decided(int index) {
                    List<HandleOutcome> done = outcomes;
                    return done != null && index < done.size();
                }

                @Override
                public void giveBack(int index) {}

                @Override
                public void renew(int index) {}

                @Override
                public void complete() {}
            };
        }
    }
}
