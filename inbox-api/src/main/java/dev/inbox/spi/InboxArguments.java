package dev.inbox.spi;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Argument checks shared by the API and by store implementations, so that every store rejects bad
 * input the same way: with an {@link IllegalArgumentException} naming the argument, before any
 * I/O.
 */
public final class InboxArguments {

    private InboxArguments() {}

    /**
     * Returns {@code value} when it is not null.
     *
     * @throws IllegalArgumentException if {@code value} is null
     */
    public static <T> T requireNonNull(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /**
     * Returns {@code duration} when it is strictly positive.
     *
     * @throws IllegalArgumentException if {@code duration} is null, zero or negative
     */
    public static Duration requirePositive(@Nullable Duration duration, String name) {
        requireNonNull(duration, name);
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive but was " + duration);
        }
        return duration;
    }

    /**
     * Returns {@code duration} when it is zero or positive.
     *
     * @throws IllegalArgumentException if {@code duration} is null or negative
     */
    public static Duration requireNonNegative(@Nullable Duration duration, String name) {
        requireNonNull(duration, name);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative but was " + duration);
        }
        return duration;
    }

    /**
     * Returns an immutable copy of {@code list} when neither it nor any element is null.
     *
     * @throws IllegalArgumentException if {@code list} or one of its elements is null
     */
    public static <T> List<T> requireNoNulls(@Nullable List<? extends @Nullable T> list, String name) {
        requireNonNull(list, name);
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == null) {
                throw new IllegalArgumentException(name + "[" + i + "] must not be null");
            }
        }
        @SuppressWarnings("unchecked")
        List<T> copy = (List<T>) List.copyOf(list);
        return copy;
    }

    /**
     * Checks a general condition on an argument.
     *
     * @throws IllegalArgumentException with {@code message} if {@code condition} is false
     */
    public static void requireArgument(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * Returns {@code result} when it is not null and at most {@code limit} bytes long: the check a
     * store makes before it stores a handler's result.
     *
     * @param store the store, named in the message
     * @throws IllegalArgumentException if {@code result} is null or longer than {@code limit}
     */
    public static byte[] requireResult(byte @Nullable [] result, int limit, Object store) {
        requireNonNull(result, "result");
        if (result.length > limit) {
            throw new IllegalArgumentException("result is " + result.length + " bytes, over the limit of " + limit
                    + " bytes that " + store.getClass().getSimpleName() + " stores (maxResultBytes)");
        }
        return result;
    }
}
