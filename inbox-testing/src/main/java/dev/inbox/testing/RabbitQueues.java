package dev.inbox.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * The arguments of the RabbitMQ queues the adapter tests declare: dead-lettering to a queue the
 * test reads, on a classic queue or on a quorum queue with a delivery limit.
 */
public final class RabbitQueues {

    /**
     * The {@code x-delivery-limit} of the quorum queues the tests declare: RabbitMQ 4's default for
     * every quorum queue (3.x has none unless it is set, as here). Past it the broker dead-letters a
     * message, so an adapter that answers a BUSY message or a store outage with requeues loses it.
     */
    public static final int QUORUM_DELIVERY_LIMIT = 20;

    private RabbitQueues() {}

    /**
     * Arguments for a queue that dead-letters to {@code deadQueue} through the default exchange;
     * with {@code quorum}, a quorum queue ({@code x-queue-type}, which must be declared durable)
     * with {@code x-delivery-limit} {@value #QUORUM_DELIVERY_LIMIT}.
     */
    public static Map<String, Object> deadLetteringTo(String deadQueue, boolean quorum) {
        if (quorum) {
            return quorumDeadLetteringTo(deadQueue, QUORUM_DELIVERY_LIMIT);
        }
        Map<String, Object> arguments = new HashMap<>();
        arguments.put("x-dead-letter-exchange", "");
        arguments.put("x-dead-letter-routing-key", deadQueue);
        return arguments;
    }

    /**
     * Arguments for a quorum queue (declare it durable) that dead-letters to {@code deadQueue}
     * after {@code deliveryLimit} redeliveries of a message ({@code x-delivery-limit}).
     */
    public static Map<String, Object> quorumDeadLetteringTo(String deadQueue, int deliveryLimit) {
        Map<String, Object> arguments = deadLetteringTo(deadQueue, false);
        arguments.put("x-queue-type", "quorum");
        arguments.put("x-delivery-limit", deliveryLimit);
        return arguments;
    }
}
