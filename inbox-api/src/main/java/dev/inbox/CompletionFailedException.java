package dev.inbox;

import org.jspecify.annotations.Nullable;

/**
 * The work ran, but its completion could not be recorded after the inbox's retries: the claim stays
 * held until its lease ends. An adapter acknowledges the message all the same (a redelivery would
 * apply the work again once the lease ends); the lease bounds the window in which a producer's
 * re-send may find the record unfinished.
 */
public class CompletionFailedException extends InboxStoreException {

    private static final long serialVersionUID = 1L;

    /** A completion that failed after the work for {@code key} ran. */
    public CompletionFailedException(InboxKey key, @Nullable InboxStoreException cause) {
        super(
                "the work for " + key + " ran, but its completion could not be recorded; the claim stays held until"
                        + " its lease ends, after which a redelivery applies it again",
                cause,
                cause == null || cause.isRetryable());
    }
}
