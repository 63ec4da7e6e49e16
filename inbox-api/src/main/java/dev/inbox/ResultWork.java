package dev.inbox;

import org.jspecify.annotations.Nullable;

/**
 * The processing of one event that answers with a result, for {@link Inbox#handleReturning}: the
 * result is kept with the completed record, and a duplicate delivery is answered with it.
 *
 * @param <T> the result type
 * @param <E> the checked exception the work may throw, rethrown unchanged by {@link Inbox}
 */
@FunctionalInterface
public interface ResultWork<T, E extends Exception> {

    /**
     * Applies the event and returns its result, or null to keep none. Throwing lets the broker
     * redeliver it: the claim is released.
     */
    @Nullable
    T run() throws E;
}
