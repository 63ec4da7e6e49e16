package dev.inbox;

/** What {@link Inbox#handle} did with one delivery. */
public enum HandleOutcome {
    /** The work ran and its claim was completed. Acknowledge the message. */
    PROCESSED,
    /** The event was already applied; the work did not run. Acknowledge the message. */
    DUPLICATE,
    /**
     * Another delivery of the same event is being processed; the work did not run. Do not
     * acknowledge: let the broker redeliver, since the other attempt may still fail.
     */
    BUSY
}
