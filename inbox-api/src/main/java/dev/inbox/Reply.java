package dev.inbox;

import dev.inbox.spi.InboxArguments;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Inbox#handleReturning} did, with the result to answer the request with.
 *
 * @param handled what was done, as {@link Inbox#handle} reports it
 * @param value for {@link HandleOutcome#PROCESSED}, what the work returned; for {@link
 *     HandleOutcome#DUPLICATE}, the result the first delivery stored, decoded; null when the work
 *     returned null, when the completed record keeps no result (it was completed by {@link
 *     Inbox#handle}), and for {@link HandleOutcome#BUSY}
 * @param <T> the result type
 */
public record Reply<T>(HandleResult handled, @Nullable T value) {

    /** Checks the arguments. */
    public Reply {
        InboxArguments.requireNonNull(handled, "handled");
    }

    /** Processed, duplicate or busy. */
    public HandleOutcome outcome() {
        return handled.outcome();
    }

    /** The {@linkplain #value() value}, when there is one. */
    public Optional<T> result() {
        return Optional.ofNullable(value);
    }

    /** True when the message may be acknowledged (processed or duplicate), false when busy. */
    public boolean shouldAcknowledge() {
        return handled.shouldAcknowledge();
    }
}
