package dev.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;

/** The application's work for one message; throwing releases the claim and nacks the message. */
@FunctionalInterface
public interface MessageHandler {
    void handle(Delivery delivery) throws Exception;
}
