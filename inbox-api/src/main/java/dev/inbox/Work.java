package dev.inbox;

/**
 * The processing of one event: the business write that must happen once.
 *
 * @param <E> the checked exception the work may throw, rethrown unchanged by {@link Inbox}
 */
@FunctionalInterface
public interface Work<E extends Exception> {

    /** Applies the event. Throwing lets the broker redeliver it: the claim is released. */
    void run() throws E;
}
