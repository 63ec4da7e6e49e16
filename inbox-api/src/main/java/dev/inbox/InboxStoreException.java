package dev.inbox;

import dev.inbox.spi.OwnerToken;
import org.jspecify.annotations.Nullable;

/**
 * The store could not answer: it was unreachable, timed out, or failed. The outcome of the
 * operation is unknown, so the message must not be acknowledged; a claim may be retried with the
 * same {@link OwnerToken} and is then answered as if it had been asked once.
 *
 * <p>A store never turns a failure into a made-up {@code ACQUIRED} or {@code DUPLICATE}.
 */
public class InboxStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    /** A failure with its cause; {@code retryable} says whether trying again may succeed. */
    public InboxStoreException(String message, @Nullable Throwable cause, boolean retryable) {
        super(message, cause);
        this.retryable = retryable;
    }

    /** A retryable failure with its cause. */
    public InboxStoreException(String message, @Nullable Throwable cause) {
        this(message, cause, true);
    }

    /**
     * True when the same call may succeed if tried again (a timeout, a lost connection, a deadlock);
     * false when it will fail the same way until something is fixed (a missing table, bad
     * credentials).
     */
    public boolean isRetryable() {
        return retryable;
    }
}
