package dev.inbox.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What to do with a record the loop cannot apply — its handler failed, or it has no dedup key —
 * instead of retrying it forever: publish it to a dead-letter topic, log it, park it. When this
 * returns, the record counts as done and its offset may be committed; when it throws, the record
 * is retried after the failure backoff.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
@FunctionalInterface
public interface RecordRecoverer<K, V> {

    /**
     * Takes care of {@code record}.
     *
     * @param failure what the handler threw, or an {@link IllegalArgumentException} saying why the
     *     record has no dedup key
     */
    void recover(ConsumerRecord<K, V> record, Exception failure) throws Exception;
}
