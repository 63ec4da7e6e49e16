package dev.inbox.kafka;

import java.sql.Connection;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The work for one record in transactional mode: its writes on {@code connection} commit together
 * with the claim, or roll back with it.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
@FunctionalInterface
public interface TransactionalRecordHandler<K, V> {

    /**
     * Applies {@code record} inside the claim's transaction; neither commit nor close {@code
     * connection}. Throwing rolls back the claim and the writes together.
     */
    void handle(ConsumerRecord<K, V> record, Connection connection) throws Exception;
}
