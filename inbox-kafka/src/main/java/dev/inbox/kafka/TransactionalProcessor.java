package dev.inbox.kafka;

import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.InboxKey;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.Processor.Batch;
import dev.inbox.kafka.Processor.Item;
import dev.inbox.kafka.Processor.Outcome;
import dev.inbox.kafka.Processor.SpanOutcome;
import dev.inbox.kafka.Processor.WorkFailed;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Transactional mode: one transaction per record, claim and work together, or per partition of a poll. */
final class TransactionalProcessor<K, V> implements Processor<K, V> {
    private final TransactionalInbox inbox;
    private final TransactionalRecordHandler<K, V> handler;
    private final boolean batches;

    TransactionalProcessor(TransactionalInbox inbox, TransactionalRecordHandler<K, V> handler, boolean batches) {
        this.inbox = inbox;
        this.handler = handler;
        this.batches = batches;
    }

    @Override
    public @Nullable SpanOutcome applyAll(List<Item<K, V>> items) {
        if (!batches) {
            return null;
        }
        List<String> ids = new ArrayList<>(items.size());
        for (Item<K, V> item : items) {
            ids.add(item.id());
        }
        List<HandleOutcome> outcomes;
        try {
            outcomes = inbox.handleAll(
                    ids, (index, connection) -> handler.handle(items.get(index).record(), connection));
        } catch (InboxStoreException e) {
            throw e;
        } catch (Exception e) {
            // Rolled back: applied record by record instead, where this one fails alone.
            return null;
        }
        int processed = 0;
        int duplicates = 0;
        for (HandleOutcome outcome : outcomes) {
            if (outcome == HandleOutcome.PROCESSED) {
                processed++;
            } else if (outcome == HandleOutcome.DUPLICATE) {
                duplicates++;
            }
        }
        return new SpanOutcome(processed, duplicates);
    }

    @Override
    public void validate(String id) {
        InboxKey.of(inbox.consumer(), id);
    }

    @Override
    public Batch<K, V> claim(List<Item<K, V>> items) {
        return new Batch<>() {
            @Override
            public Outcome run(int index) throws WorkFailed {
                Item<K, V> item = items.get(index);
                // The record's own span, in the producer's trace (its headers): the claim, the work
                // and the commit of its transaction are children of it.
                try (InboxObserver.Step receipt = inbox.observer()
                        .receive(inbox.consumer(), "kafka", name -> KafkaInboxLoop.header(item.record(), name))) {
                    HandleResult result;
                    try {
                        result = inbox.handle(item.id(), connection -> handler.handle(item.record(), connection));
                    } catch (InboxStoreException e) {
                        receipt.error(e);
                        throw e;
                    } catch (Exception e) {
                        receipt.error(e);
                        throw new WorkFailed(e);
                    }
                    Outcome outcome = switch (result.outcome()) {
                        case DUPLICATE -> Outcome.DUPLICATE;
                        case BUSY -> Outcome.BUSY;
                        default -> Outcome.DONE;
                    };
                    receipt.outcome(outcome.name().toLowerCase(java.util.Locale.ROOT));
                    return outcome;
                }
            }

            @Override
            public void abandon(int index) {
                // nothing is held: each record's transaction has ended
            }
        };
    }
}
