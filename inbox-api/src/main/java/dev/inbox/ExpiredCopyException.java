package dev.inbox;

import static dev.inbox.spi.InboxArguments.requirePositive;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A copy of an event older than the window in which the inbox recognises it: an {@code EXPIRED}
 * copy. Its event's record may already be gone (a record lives for the retention after its event
 * was completed, and the event was first sent before that), so whether it was applied cannot be
 * known — it must not be applied again on the chance that it was not.
 *
 * <p>The key functions of the adapters throw it when asked to refuse late copies ({@code
 * RecordKeys}, {@code MessageKeys} and {@code SqsKeys}, each {@code refusingCopiesOlderThan}), judged
 * by the broker's own timestamp of the copy. Every adapter handles a key function that throws as a
 * message without a usable key: dead-lettered where a dead-letter path is configured (counted as
 * dead-lettered, logged with this message), otherwise progress stops at it — never applied, never
 * skipped unseen.
 */
public final class ExpiredCopyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final Instant sentAt;
    private final Duration window;

    private ExpiredCopyException(String what, Instant sentAt, Duration age, Duration window) {
        super(what + " was sent at " + sentAt + ", " + age + " ago, longer than the " + window
                + " within which the inbox recognises a copy (EXPIRED): its record may be gone, so whether it was"
                + " applied cannot be known; it is not applied");
        this.sentAt = sentAt;
        this.window = window;
    }

    /**
     * Refuses a copy sent at {@code sentAt} (by the broker's clock) that is older than {@code
     * window} now (by this process's clock). A copy without a timestamp ({@code sentAt} null) cannot
     * be judged and is admitted.
     *
     * @param what names the copy in the message (its topic and offset, its queue and id…)
     * @throws ExpiredCopyException if the copy is older than {@code window}
     * @throws IllegalArgumentException if {@code window} is null or not positive
     */
    public static void refuseIfOlderThan(Duration window, @Nullable Instant sentAt, String what) {
        requirePositive(window, "window");
        if (sentAt == null) {
            return;
        }
        Duration age = Duration.between(sentAt, Instant.now());
        if (age.compareTo(window) > 0) {
            throw new ExpiredCopyException(what, sentAt, age, window);
        }
    }

    /** When the broker says the copy was sent. */
    public Instant sentAt() {
        return sentAt;
    }

    /** The window the copy was older than. */
    public Duration window() {
        return window;
    }
}
