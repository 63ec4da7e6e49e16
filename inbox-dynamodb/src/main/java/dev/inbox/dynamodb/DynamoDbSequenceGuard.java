package dev.inbox.dynamodb;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import dev.inbox.SequenceStatus;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The DynamoDB {@link SequenceGuard}: one item per entity ({@code pk = s:<consumer length>:<consumer>
 * <entity>}, attribute {@code last}) in the store's table. The first number is a {@code PutItem}
 * conditioned on {@code attribute_not_exists(pk)}, a later one an {@code UpdateItem} conditioned on
 * {@code last = seq - 1}, so among concurrent deliveries of one number exactly one is APPLIED; a
 * failed condition is explained by a strongly consistent read. Obtain it from {@link
 * DynamoDbInboxStore#sequenceGuard()}.
 */
public final class DynamoDbSequenceGuard implements SequenceGuard {

    private final DynamoDbInboxStore store;
    private final AtomicBoolean closed = new AtomicBoolean();

    DynamoDbSequenceGuard(DynamoDbInboxStore store) {
        this.store = store;
    }

    @Override
    public SequenceResult advance(InboxKey entity, long seq) {
        SequenceGuard.validate(entity, seq);
        if (closed.get()) {
            throw new IllegalStateException("the sequence guard is closed");
        }
        store.ensureOpen();
        AttributeValue pk = DynamoDbItems.s(DynamoDbItems.sequenceKey(entity));
        while (true) {
            try {
                if (seq == FIRST_SEQUENCE) {
                    DynamoDbItems.call(
                            "advance of " + entity,
                            () -> store.client()
                                    .putItem(b -> b.tableName(store.table())
                                            .item(Map.of("pk", pk, "last", DynamoDbItems.n(seq)))
                                            .conditionExpression("attribute_not_exists(pk)")));
                } else {
                    DynamoDbItems.call(
                            "advance of " + entity,
                            () -> store.client()
                                    .updateItem(b -> b.tableName(store.table())
                                            .key(Map.of("pk", pk))
                                            .updateExpression("SET #last = :seq")
                                            .conditionExpression("#last = :previous")
                                            .expressionAttributeNames(Map.of("#last", "last"))
                                            .expressionAttributeValues(Map.of(
                                                    ":seq",
                                                    DynamoDbItems.n(seq),
                                                    ":previous",
                                                    DynamoDbItems.n(seq - 1)))));
                }
                return new SequenceResult(SequenceStatus.APPLIED, seq);
            } catch (DynamoDbItems.ConditionalFailure failure) {
                Map<String, AttributeValue> item = DynamoDbItems.call(
                                "read of " + entity,
                                () -> store.client()
                                        .getItem(b -> b.tableName(store.table())
                                                .key(Map.of("pk", pk))
                                                .consistentRead(true)))
                        .item();
                long expected = item == null || item.isEmpty()
                        ? FIRST_SEQUENCE
                        : Long.parseLong(item.get("last").n()) + 1;
                if (expected != seq) {
                    return SequenceResult.decide(seq, expected);
                }
                // the entity reached seq - 1 between the write and the read: try again
            }
        }
    }

    /** Later calls throw {@link IllegalStateException}. */
    @Override
    public void close() {
        closed.set(true);
    }
}
