package dev.inbox.spring;

/**
 * Another delivery of the event holds a live claim: this delivery must not be acknowledged, and
 * is to be redelivered after a pause, never skipped or dead-lettered. The listener adapters throw
 * it so that the container's error handling seeks back (Kafka) or requeues (RabbitMQ).
 */
public final class InboxBusyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String id;

    /** For the event whose dedup id is {@code id}. */
    public InboxBusyException(String id) {
        super("event " + id + " is being handled by another delivery; redeliver it later, do not acknowledge it");
        this.id = id;
    }

    /** The dedup id of the event another delivery holds. */
    public String id() {
        return id;
    }
}
