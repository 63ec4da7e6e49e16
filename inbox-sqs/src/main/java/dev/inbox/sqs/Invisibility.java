package dev.inbox.sqs;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.Renewals;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

/**
 * How a received SQS message is kept from being handed out again while its work runs, for {@link
 * SqsInboxLoop} and the Spring SQS listener of {@code inbox-spring} alike: its visibility timeout is
 * set again every third of how long one extension holds it, on the shared {@link Renewals}, for at
 * most the inbox's maximum in-hand time — work that never returns does not keep its message from
 * every consumer for ever: past it the extensions stop and the queue hands the message out again.
 */
public final class Invisibility {

    /** The longest visibility timeout SQS takes: 12 hours. */
    public static final int MAX_VISIBILITY_SECONDS = 43_200;

    private Invisibility() {}

    /**
     * Runs {@code extend} every third of {@code holds} (at least every millisecond), the first time
     * a third from now, until the returned future is cancelled, {@code extend} throws {@link
     * java.util.concurrent.CancellationException}, or {@code maxInHand} has passed — then {@code
     * abandoned} is called once (to log it) and the extensions end.
     *
     * @param holds how long one extension keeps the message invisible: the shortest of the
     *     visibility timeout asked for and any lease that must not lapse between two ticks
     * @throws IllegalArgumentException if an argument is null, or a duration is not positive
     */
    public static ScheduledFuture<?> keep(Duration holds, Duration maxInHand, Runnable abandoned, Runnable extend) {
        requirePositive(holds, "holds");
        requireNonNull(extend, "extend");
        Duration every = Duration.ofMillis(Math.max(1, holds.toMillis() / 3));
        Renewals.InHand inHand = new Renewals.InHand(System.nanoTime(), maxInHand, abandoned);
        return Renewals.shared().every(every, every, inHand, extend);
    }

    /**
     * {@code duration} as a visibility timeout: whole seconds rounded up (a message must not come
     * back before its time), at most {@link #MAX_VISIBILITY_SECONDS}, never negative.
     *
     * @throws IllegalArgumentException if {@code duration} is null
     */
    public static int seconds(Duration duration) {
        long millis = requireNonNull(duration, "duration").toMillis();
        long seconds = millis / 1000 + (millis % 1000 > 0 ? 1 : 0);
        return (int) Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, seconds));
    }
}
