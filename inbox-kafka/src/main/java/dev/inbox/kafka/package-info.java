/**
 * The Kafka adapter: {@link dev.inbox.kafka.KafkaInboxLoop}, a consumer loop that claims each poll,
 * applies new events in partition order and commits offsets only past records that are safely
 * done; {@link dev.inbox.kafka.RecordKeys}, where a record's dedup id comes from.
 */
@NullMarked
package dev.inbox.kafka;

import org.jspecify.annotations.NullMarked;
