/**
 * inbox for Spring applications: {@link dev.inbox.spring.SpringInbox}, whose claims join the
 * Spring-managed transaction, and the listener adapters in {@code dev.inbox.spring.kafka} and
 * {@code dev.inbox.spring.amqp}.
 */
@NullMarked
package dev.inbox.spring;

import org.jspecify.annotations.NullMarked;
