package dev.inbox.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The work for one record in lease mode: run once per event, however often it is delivered.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
@FunctionalInterface
public interface RecordHandler<K, V> {

    /** Applies {@code record}; throwing releases the claim and the record is retried or recovered. */
    void handle(ConsumerRecord<K, V> record) throws Exception;
}
