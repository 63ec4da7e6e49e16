package dev.inbox.dynamodb;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.ScanningInboxAdmin;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@link DynamoDbInboxStore#admin()}. {@code inspect} is one strongly consistent {@code GetItem};
 * {@code releaseLease} and {@code forget} one conditional {@code DeleteItem}. {@code stuck} and
 * {@code count} {@code Scan} the whole table (strongly consistent, filtered on the consumer's key
 * prefix on the server): DynamoDB bills every item scanned, whatever the filter keeps, so they cost
 * the table's read capacity for all its items. Times are this JVM's clock, as for the claims.
 */
final class DynamoDbAdmin extends ScanningInboxAdmin {

    private final DynamoDbInboxStore store;

    DynamoDbAdmin(DynamoDbInboxStore store) {
        this.store = store;
    }

    @Override
    public Optional<RecordView> inspect(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        store.ensureOpen();
        Map<String, AttributeValue> item = DynamoDbItems.call(
                        "inspection of " + key,
                        () -> store.client()
                                .getItem(b -> b.tableName(store.table())
                                        .key(Map.of("pk", DynamoDbItems.s(DynamoDbItems.recordKey(key))))
                                        .consistentRead(true)))
                .item();
        return item == null || !item.containsKey("ow")
                ? Optional.empty()
                : Optional.of(view(key, item, store.clock().millis()));
    }

    @Override
    protected void ensureOpen() {
        store.ensureOpen();
    }

    @Override
    protected boolean delete(String what, InboxKey key, boolean heldOnly) {
        // A record past expiry + grace counts as absent: nothing an operator deleted.
        String condition = heldOnly ? "st = :held AND rm > :now" : "rm > :now";
        Map<String, AttributeValue> values = heldOnly
                ? Map.of(
                        ":held",
                        DynamoDbItems.s("I"),
                        ":now",
                        DynamoDbItems.n(store.clock().millis()))
                : Map.of(":now", DynamoDbItems.n(store.clock().millis()));
        try {
            DynamoDbItems.call(
                    what,
                    () -> store.client()
                            .deleteItem(b -> b.tableName(store.table())
                                    .key(Map.of("pk", DynamoDbItems.s(DynamoDbItems.recordKey(key))))
                                    .conditionExpression(condition)
                                    .expressionAttributeValues(values)));
            return true;
        } catch (DynamoDbItems.ConditionalFailure failure) {
            return false; // absent, completed (release) or past expiry + grace
        }
    }

    @Override
    protected void scan(String what, String consumer, Visitor visit) {
        String prefix = DynamoDbItems.recordKey(InboxKey.of(consumer, "x"));
        String head = prefix.substring(0, prefix.length() - 1);
        DynamoDbItems.call(what, () -> {
            store.client()
                    .scanPaginator(b -> b.tableName(store.table())
                            .consistentRead(true)
                            .filterExpression("begins_with(pk, :head)")
                            .expressionAttributeValues(Map.of(":head", DynamoDbItems.s(head))))
                    .items()
                    .forEach(item -> {
                        if (item.containsKey("ow")) {
                            long now = store.clock().millis();
                            String id = item.get("pk").s().substring(head.length());
                            visit.visit(view(InboxKey.of(consumer, id), item, now), now);
                        }
                    });
            return null;
        });
    }

    private static RecordView view(InboxKey key, Map<String, AttributeValue> item, long now) {
        AttributeValue fingerprint = item.get("fp");
        AttributeValue result = item.get("rs");
        return RecordView.ofMillis(
                key,
                "C".equals(item.get("st").s()),
                item.get("ow").s(),
                now,
                Long.parseLong(item.get("ex").n()),
                Long.parseLong(item.get("rm").n()),
                fingerprint == null ? null : fingerprint.s(),
                result == null ? null : result.b().asByteArrayUnsafe().length);
    }
}
