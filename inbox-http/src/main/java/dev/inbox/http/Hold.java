package dev.inbox.http;

import dev.inbox.Claim;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;

/** What a {@link IdempotentRequests.Proceed} holds its key by: a lease-mode claim, or a claim inside the request's transaction. */
sealed interface Hold permits Hold.Leased, Hold.InTransaction {

    System.Logger LOG = System.getLogger(IdempotentRequests.class.getName());

    /** The scoped key, for messages. */
    String id();

    /** Keeps {@code kept} and ends the hold: {@code done} if that worked, else what became of it. */
    IdempotentRequests.Finished keep(byte[] kept, IdempotentRequests.Finished done);

    /** Lets the key go without keeping anything: the next try runs the handler. Never throws. */
    void release();

    /** {@link #release}, with a failure to do so added to {@code failure}. */
    void abandon(Throwable failure);

    /** A lease-mode claim, renewed while the handler runs and completed with the response. */
    record Leased(Claim claim) implements Hold {
        @Override
        public String id() {
            return claim.id();
        }

        @Override
        public IdempotentRequests.Finished keep(byte[] kept, IdempotentRequests.Finished done) {
            try {
                if (!claim.complete(kept)) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "the claim of " + claim.id() + " expired before its response was kept (a handler slower"
                                    + " than the renewals?): another request may have run it again");
                    return IdempotentRequests.Finished.LEASE_LOST;
                }
                return done;
            } catch (InboxStoreException e) { // CompletionFailedException too
                LOG.log(
                        System.Logger.Level.ERROR,
                        "the response to " + claim.id() + " could not be kept; a retry after the lease runs the"
                                + " handler again",
                        e);
                return IdempotentRequests.Finished.NOT_RECORDED;
            }
        }

        @Override
        public void release() {
            try {
                claim.release();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not release " + claim.id() + "; its lease runs out", e);
            }
        }

        @Override
        public void abandon(Throwable failure) {
            try {
                claim.release();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /** A claim written in the request's transaction: kept and committed with the handler's writes, or rolled back with them. */
    record InTransaction(RequestTransaction transaction, InboxKey key) implements Hold {
        @Override
        public String id() {
            return key.id();
        }

        @Override
        public IdempotentRequests.Finished keep(byte[] kept, IdempotentRequests.Finished done) {
            try {
                transaction.keep(key, kept);
            } catch (RuntimeException e) {
                transaction.rollback();
                LOG.log(
                        System.Logger.Level.ERROR,
                        "the response to " + key.id() + " could not be kept: the request's transaction, the handler's"
                                + " writes with it, is rolled back",
                        e);
                return IdempotentRequests.Finished.NOT_COMMITTED;
            }
            try {
                if (!transaction.commit()) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "the transaction of " + key.id() + " was marked rollback-only by the handler and rolled"
                                    + " back: nothing is kept, the next try runs it again");
                    return IdempotentRequests.Finished.RELEASED;
                }
                return done;
            } catch (InboxStoreException e) {
                LOG.log(
                        System.Logger.Level.ERROR,
                        "the commit of " + key.id() + " failed: whether the handler's writes and the response were"
                                + " committed is unknown; a retry with the same key gets the response or runs it",
                        e);
                return IdempotentRequests.Finished.NOT_COMMITTED;
            }
        }

        @Override
        public void release() {
            transaction.rollback();
        }

        @Override
        public void abandon(Throwable failure) {
            try {
                transaction.rollback();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }
}
