package dev.inbox.sqs;

import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
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
}
