package dev.inbox.rabbitmq;

/**
 * What a RabbitMQ adapter does with a message that has no usable dedup key: the {@link
 * MessageKeys} found none, threw, or gave an id the inbox refuses (over 512 bytes). Such a message
 * is never processed: without a key the inbox cannot tell its redeliveries apart from new events.
 *
 * <p>AMQP 0-9-1 does not tell a consumer whether its queue has a dead-letter exchange (a policy can
 * give it one, outside the queue's arguments), and a queue without one <em>drops</em> a message
 * rejected without requeue. So the default is {@link #HOLD}; choose {@link #DEAD_LETTER} for queues
 * you know have a dead-letter exchange.
 */
public enum KeylessMessages {
    /**
     * The default: the message is held unacknowledged on its channel — never applied, never
     * dropped — and logged at {@code ERROR} with how to give it a key. It takes one of the channel's
     * prefetch slots for as long as the consumer runs, so progress stops once they are all taken;
     * RabbitMQ's management shows it as unacknowledged. Stopping the consumer requeues it. RabbitMQ's
     * {@code consumer_timeout} (30 minutes by default) closes a channel that holds a delivery longer,
     * which requeues it as well: the consumer stops there, as a Kafka partition stops at a record
     * without a key. Fix the producer, or move the message by hand.
     */
    HOLD,
    /**
     * Rejected without requeue ({@code basicReject}, or Spring's {@code
     * AmqpRejectAndDontRequeueException}), so the broker moves it to the queue's dead-letter
     * exchange. Choose this only for a queue that has one: on a queue without one the broker drops
     * the message.
     */
    DEAD_LETTER
}
