package dev.inbox.sqs;

import dev.inbox.HandleOutcome;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import java.util.List;
import org.jspecify.annotations.Nullable;

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
                        outcomes = inbox.handleAll(ids, (i, connection) -> handler.handle(messages.get(i), connection));
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
