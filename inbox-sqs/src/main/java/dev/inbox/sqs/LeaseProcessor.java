package dev.inbox.sqs;

import dev.inbox.Claim;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
        return new LeasedReceive(ids, inbox.claims().claimAll(ids));
    }

    /** One claim of {@code id} again: a busy event's, or one given back before a wait. */
    private Claim claimAgain(String id) {
        return inbox.claims().claimAll(List.of(id)).get(0);
    }

    /**
     * One receive's claims: each event's work run under its claim; what is done completed together
     * at the end (or before the receive waits in place), what is not begun given back before a wait
     * and claimed again at its turn.
     */
    private final class LeasedReceive implements Batch {

        private final List<String> ids;
        private final List<Claim> claims;
        /** Held and not yet run (or given back). */
        private final boolean[] open;
        /** Given back before a wait: claimed again at its turn. */
        private final boolean[] reclaim;
        /** Done and completed before the receive ends. */
        private final boolean[] recorded;

        private final List<Claim> done = new ArrayList<>();
        private final List<Integer> doneAt = new ArrayList<>();

        LeasedReceive(List<String> ids, List<Claim> claimed) {
            this.ids = ids;
            this.claims = new java.util.concurrent.CopyOnWriteArrayList<>(claimed);
            this.open = new boolean[claimed.size()];
            this.reclaim = new boolean[claimed.size()];
            this.recorded = new boolean[claimed.size()];
            for (int i = 0; i < open.length; i++) {
                open[i] = claimed.get(i).isAcquired();
            }
        }

        @Override
        public HandleOutcome run(int index, SqsMessage message) throws Exception {
            if (reclaim[index]) {
                reclaim[index] = false;
                claimedAgain(index);
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

        private void claimedAgain(int index) {
            Claim again = claimAgain(ids.get(index));
            claims.set(index, again);
            open[index] = again.isAcquired();
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
            claimedAgain(index);
            return run(index, message);
        }

        @Override
        public void giveBack(int index) {
            if (open[index]) {
                open[index] = false;
                try {
                    claims.get(index).release();
                } catch (InboxStoreException e) {
                    LOG.log(System.Logger.Level.WARNING, "a claim could not be released; its lease ends by itself", e);
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
    }
}
