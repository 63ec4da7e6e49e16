/**
 * The inbox on Spring Kafka's share-group listeners (KIP-932): {@link
 * dev.inbox.spring.kafka.share.InboxShareContainerFactory}, a share listener container factory whose
 * containers run each record through {@link dev.inbox.kafka.KafkaShareInboxLoop}.
 */
@NullMarked
package dev.inbox.spring.kafka.share;

import org.jspecify.annotations.NullMarked;
