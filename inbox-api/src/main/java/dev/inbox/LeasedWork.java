package dev.inbox;

/**
 * The processing of one event that may run longer than any lease you would choose: {@link
 * Inbox#handleRenewing} renews its claim in the background while it runs, and hands it the {@link
 * Lease} to check before a side effect that must not happen twice.
 *
 * @param <E> the checked exception the work may throw, rethrown unchanged by {@link Inbox}
 */
@FunctionalInterface
public interface LeasedWork<E extends Exception> {

    /** Applies the event. Throwing lets the broker redeliver it: the claim is released. */
    void run(Lease lease) throws E;
}
