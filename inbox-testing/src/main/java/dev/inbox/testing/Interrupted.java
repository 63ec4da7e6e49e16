package dev.inbox.testing;

import java.util.function.Supplier;

/**
 * Runs a call on the current thread with its interrupt flag set, for tests of code that must stop
 * (or must not stop) when interrupted: what the call returned, and whether the flag was still set
 * when it returned. The flag is cleared afterwards either way, so the test thread goes on clean.
 */
public final class Interrupted {

    /**
     * What an interrupted call returned.
     *
     * @param value the call's result
     * @param flagKept whether the thread was still interrupted when the call returned
     */
    public record Outcome<T>(T value, boolean flagKept) {}

    private Interrupted() {}

    /** Calls {@code call} with the current thread interrupted; see the class comment. */
    public static <T> Outcome<T> call(Supplier<T> call) {
        Thread.currentThread().interrupt();
        T value;
        boolean kept;
        try {
            value = call.get();
        } finally {
            kept = Thread.interrupted();
        }
        return new Outcome<>(value, kept);
    }
}
