package dev.inbox.testing;

import org.jspecify.annotations.Nullable;

/**
 * No server could be found or started for a backend. The message names every way tried and how
 * to provide one; a test that gets it fails — it is never turned into a skip.
 */
public final class NoTestServerException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    NoTestServerException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
