/**
 * Spring Kafka: {@link dev.inbox.spring.kafka.InboxRecordInterceptor} for listener containers and
 * {@link dev.inbox.spring.kafka.InboxKafka}, which installs it with the error handling it needs.
 * Needs {@code spring-kafka} and {@code inbox-kafka} on the class path.
 */
@NullMarked
package dev.inbox.spring.kafka;

import org.jspecify.annotations.NullMarked;
