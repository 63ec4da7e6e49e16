package dev.inbox.sqs;

import java.sql.Connection;

/** The work of one new event, in transactional mode: its writes go through {@code connection}. */
@FunctionalInterface
public interface TransactionalSqsMessageHandler {

    /**
     * Applies the event on the transaction's connection (never commit or close it). Throwing rolls
     * back the writes and the claim together.
     */
    void handle(SqsMessage message, Connection connection) throws Exception;
}
