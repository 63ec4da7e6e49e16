package dev.inbox;

/**
 * The processing of one item of a batch ({@link Inbox#handleAll}).
 *
 * @param <T> the item: a message, a record
 */
@FunctionalInterface
public interface ItemWork<T> {

    /** Applies the item's event. Throwing fails this item only: its claim is released. */
    void run(T item) throws Exception;
}
