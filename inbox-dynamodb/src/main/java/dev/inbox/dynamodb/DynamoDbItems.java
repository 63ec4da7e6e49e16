package dev.inbox.dynamodb;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.StoredRecord;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The items of the DynamoDB store and its sequence guard: their keys, attribute values, the record
 * an item holds, and how an SDK call's failure is reported.
 *
 * <p>A record item: {@code pk} ({@code r:<consumer length>:<consumer><id>}), {@code ow} owner,
 * {@code st} {@code I} or {@code C}, {@code ex} expiry and {@code rm} expiry + grace in epoch
 * milliseconds, {@code fp} fingerprint, {@code rs} the result a COMPLETED record keeps (binary),
 * {@code ttl} epoch seconds. A sequence item: {@code pk}
 * ({@code s:…}) and {@code last}.
 */
final class DynamoDbItems {

    private static final long MAX_MILLIS = Duration.ofDays(36_525).toMillis();

    private DynamoDbItems() {}

    static @Nullable StoredRecord record(@Nullable Map<String, AttributeValue> item, long now) {
        if (item == null || item.isEmpty() || !item.containsKey("ow")) {
            return null;
        }
        AttributeValue fp = item.get("fp");
        AttributeValue result = item.get("rs");
        long expires = Long.parseLong(item.get("ex").n());
        return new StoredRecord(
                item.get("ow").s(),
                "C".equals(item.get("st").s()),
                expires <= now,
                Long.parseLong(item.get("rm").n()) <= now,
                fp == null ? null : fp.s(),
                result == null ? null : result.b().asByteArray(),
                Duration.ofMillis(now - expires));
    }

    static String recordKey(InboxKey key) {
        return "r:" + key.consumer().length() + ":" + key.consumer() + key.id();
    }

    static String sequenceKey(InboxKey entity) {
        return "s:" + entity.consumer().length() + ":" + entity.consumer() + entity.id();
    }

    static AttributeValue s(String value) {
        return AttributeValue.builder().s(value).build();
    }

    static AttributeValue n(long value) {
        return AttributeValue.builder().n(Long.toString(value)).build();
    }

    /** {@code duration} in whole milliseconds, at least 1, at most 100 years. */
    static long millis(Duration duration) {
        return duration.compareTo(Duration.ofMillis(MAX_MILLIS)) >= 0 ? MAX_MILLIS : Math.max(1, duration.toMillis());
    }

    /** A conditional write whose condition failed, with the item when the service returned it. */
    static final class ConditionalFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient @Nullable Map<String, AttributeValue> item;

        ConditionalFailure(@Nullable Map<String, AttributeValue> item) {
            super(null, null, false, false);
            this.item = item;
        }
    }

    /** Runs an SDK call: a failed condition becomes {@link ConditionalFailure}, any other failure {@link InboxStoreException}. */
    static <T> T call(String operation, Supplier<T> call) {
        try {
            return call.get();
        } catch (ConditionalCheckFailedException e) {
            throw new ConditionalFailure(e.hasItem() ? e.item() : null);
        } catch (SdkException e) {
            throw failure(operation, e);
        }
    }

    static InboxStoreException failure(String operation, Throwable cause) {
        // A missing table stays missing; timeouts, throttling and lost connections may pass.
        boolean retryable = !(cause instanceof ResourceNotFoundException);
        return new InboxStoreException(operation + " failed: " + cause.getMessage(), cause, retryable);
    }
}
