package dev.inbox.sqs;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** How a receive's messages go through the inbox: lease or transactional mode. */
interface Processor {

    /** The lease a claim holds outside a transaction; zero in transactional mode. */
    Duration lease();

    /** How long a completed event's record suppresses duplicates. */
    Duration retention();

    /** Throws {@link IllegalArgumentException} if {@code id} cannot make a key of this inbox. */
    void validate(String id);

    /**
     * Claims the events of a receive (lease mode) or prepares to claim each in its transaction.
     *
     * @throws InboxStoreException if the store could not answer: nothing was claimed
     */
    Batch claim(List<String> ids);

    /** What was claimed for one receive; indexes are positions in the ids given to {@link #claim}. */
    interface Batch {

        /**
         * Runs the work of one event if it is new.
         *
         * @throws InboxStoreException if the store could not answer (transactional mode)
         * @throws Exception what the work threw, its claim released or its transaction rolled back
         */
        HandleOutcome run(int index, SqsMessage message) throws Exception;

        /** Gives an event back without its work: its claim released, if it holds one. */
        void giveBack(int index);

        /** Extends the lease of an event still held (lease mode); a failure is only logged. */
        void renew(int index);

        /**
         * Records the work that ran as done (lease mode: one {@link Inbox#completeAll}).
         *
         * @throws InboxStoreException if the store could not record it; the work ran
         */
        void complete();
    }

    /** Lease mode: one {@link Inbox#claimAll} per receive, one {@link Inbox#completeAll}. */
    final class LeaseProcessor implements Processor {
        private static final System.Logger LOG = System.getLogger(SqsInboxLoop.class.getName());
        private final Inbox inbox;
        private final SqsMessageHandler handler;

        LeaseProcessor(Inbox inbox, SqsMessageHandler handler) {
            this.inbox = inbox;
            this.handler = handler;
        }

        @Override
        public Duration lease() {
            return inbox.lease();
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
        public Batch claim(List<String> ids) {
            List<Claim> claims = inbox.claimAll(ids);
            boolean[] open = new boolean[claims.size()];
            for (int i = 0; i < open.length; i++) {
                open[i] = claims.get(i).isAcquired();
            }
            List<Claim> done = new ArrayList<>();
            return new Batch() {
                @Override
                public HandleOutcome run(int index, SqsMessage message) throws Exception {
                    Claim claim = claims.get(index);
                    if (!claim.isAcquired()) {
                        return switch (claim.status()) {
                            case DUPLICATE -> HandleOutcome.DUPLICATE;
                            default -> HandleOutcome.BUSY;
                        };
                    }
                    try {
                        handler.handle(message);
                    } catch (Throwable failure) {
                        giveBack(index);
                        throw failure;
                    }
                    open[index] = false;
                    done.add(claim);
                    return HandleOutcome.PROCESSED;
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
                    if (!claim.isAcquired()) {
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
                        inbox.completeAll(done);
                    }
                }
            };
        }
    }

    /** Transactional mode: each event claimed in the transaction of its work. */
    final class TransactionalProcessor implements Processor {
        private final TransactionalInbox inbox;
        private final TransactionalSqsMessageHandler handler;

        TransactionalProcessor(TransactionalInbox inbox, TransactionalSqsMessageHandler handler) {
            this.inbox = inbox;
            this.handler = handler;
        }

        @Override
        public Duration lease() {
            return Duration.ZERO;
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
        public Batch claim(List<String> ids) {
            return new Batch() {
                @Override
                public HandleOutcome run(int index, SqsMessage message) throws Exception {
                    return inbox.handle(ids.get(index), connection -> handler.handle(message, connection))
                            .outcome();
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
