package dev.inbox.sqs;

import dev.inbox.HandleOutcome;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.jdbc.TransactionalInbox;
import java.time.Duration;
import java.util.List;

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
