package dev.inbox.sqs;

/** The work of one new event, in lease mode. */
@FunctionalInterface
public interface SqsMessageHandler {

    /**
     * Applies the event. Throwing an {@code Exception} releases its claim and makes the message
     * visible again after the loop's failure back-off (or leaves it to the queue's redrive policy).
     */
    void handle(SqsMessage message) throws Exception;
}
