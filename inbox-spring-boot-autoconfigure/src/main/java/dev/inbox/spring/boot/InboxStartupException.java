package dev.inbox.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * The inbox cannot start as configured: what is wrong ({@link #description()}) and what to change
 * ({@link #action()}). Spring Boot prints both in its failure-analysis box ({@link
 * InboxFailureAnalyzer}) instead of a stack trace whose real cause is several levels down.
 */
public final class InboxStartupException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    /** A startup failure: {@code description} says what is wrong, {@code action} what to change. */
    public InboxStartupException(String description, String action, @Nullable Throwable cause) {
        super(description + " " + action, cause);
        this.description = description;
        this.action = action;
    }

    /** What is wrong, with the real cause named. */
    public String description() {
        return description;
    }

    /** What to change so that the application starts. */
    public String action() {
        return action;
    }
}
