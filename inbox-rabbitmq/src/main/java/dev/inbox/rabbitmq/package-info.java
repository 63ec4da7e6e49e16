/**
 * RabbitMQ on the plain amqp-client: {@link dev.inbox.rabbitmq.InboxConsumer} runs each delivery of
 * a manual-ack consumer through an {@link dev.inbox.Inbox}, with the key chosen by {@link
 * dev.inbox.rabbitmq.MessageKeys}.
 */
@NullMarked
package dev.inbox.rabbitmq;

import org.jspecify.annotations.NullMarked;
