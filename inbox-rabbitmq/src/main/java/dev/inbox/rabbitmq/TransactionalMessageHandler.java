package dev.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import java.sql.Connection;

/**
 * The application's work for one message in transactional mode: its writes on {@code connection}
 * commit together with the claim, or roll back with it; the message is acknowledged after the
 * commit.
 */
@FunctionalInterface
public interface TransactionalMessageHandler {

    /** Applies the message inside the claim's transaction; neither commit nor close {@code connection}. */
    void handle(Delivery delivery, Connection connection) throws Exception;
}
