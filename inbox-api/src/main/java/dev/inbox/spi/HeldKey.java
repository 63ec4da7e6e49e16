package dev.inbox.spi;

import dev.inbox.InboxKey;

/**
 * A key and the owner that claimed it: one item of {@link InboxStore#completeAll}.
 *
 * @param key the event's key
 * @param owner the owner its claim was made with
 */
public record HeldKey(InboxKey key, OwnerToken owner) {

    /**
     * Checks the arguments.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public HeldKey {
        InboxArguments.requireNonNull(key, "key");
        InboxArguments.requireNonNull(owner, "owner");
    }
}
