package dev.inbox;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Inbox#handleAll} did with one item.
 *
 * @param item the item
 * @param result what was done: processed, duplicate or busy; null when the work failed
 * @param failure what the work threw, after which the claim was released; null otherwise
 * @param <T> the item's type
 */
public record ItemResult<T>(
        T item, @Nullable HandleResult result, @Nullable Exception failure) {

    /** True when the work threw: do not acknowledge the item; its claim was released. */
    public boolean isFailed() {
        return failure != null;
    }

    /** True when the item may be acknowledged: processed or duplicate. */
    public boolean shouldAcknowledge() {
        return result != null && result.shouldAcknowledge();
    }
}
