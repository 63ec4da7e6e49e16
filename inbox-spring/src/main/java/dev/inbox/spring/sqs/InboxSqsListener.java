package dev.inbox.spring.sqs;

import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxKey;
import dev.inbox.spring.InboxClaim;
import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import dev.inbox.sqs.Invisibility;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.sqs.SqsMessage;
import io.awspring.cloud.sqs.listener.AsyncMessageListener;
import io.awspring.cloud.sqs.listener.SqsHeaders;
import io.awspring.cloud.sqs.listener.Visibility;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * A Spring Cloud AWS SQS listener that runs the container's own listener (your {@code @SqsListener}
 * method) through the inbox: a duplicate completes without it, and so is acknowledged (deleted) by
 * the container; a busy message (another delivery holds its event) is kept in hand, its visibility
 * extended, and claimed again every busy back-off until the holder lets go — it then runs the
 * listener or completes as a duplicate — so that it never goes back to the queue and no BUSY answer
 * counts towards the redrive policy's {@code maxReceiveCount}; the listener's failure releases
 * the claim and fails the message, which the queue hands out again (and its redrive policy
 * dead-letters after {@code maxReceiveCount}); its success completes the claim. A listener that
 * returns a {@code CompletableFuture} is completed or released when that future ends.
 *
 * <p>While the listener runs, the claim's lease is renewed and the message's visibility timeout is
 * set to the lease (rounded up to a second) every third of the lease, so work longer than either
 * is neither taken over by another delivery nor handed out again by the queue. Keep the queue's
 * visibility timeout at least a third of the inbox's lease (the defaults, 30 s and one minute, do).
 *
 * <p>A message without a usable dedup key fails without running the listener, so it is never
 * processed without deduplication; the queue's redrive policy moves it to the dead-letter queue.
 * Works with the {@code ON_SUCCESS} acknowledgement mode (the default) and single-message
 * listeners; {@link InboxSqsListeners} refuses containers with another mode.
 *
 * @param <T> the payload type
 */
public final class InboxSqsListener<T> implements AsyncMessageListener<T> {

    private static final Log log = LogFactory.getLog(InboxSqsListener.class);

    /** The inbox of the queue a message came from (by its name). */
    private final Function<String, SpringInbox> inboxes;

    private final SqsKeys keys;
    private final AsyncMessageListener<T> listener;
    private final Duration busyBackoff;
    private final ListenerCounts counts;

    InboxSqsListener(
            Function<String, SpringInbox> inboxes,
            SqsKeys keys,
            AsyncMessageListener<T> listener,
            Duration busyBackoff,
            ListenerCounts counts) {
        this.inboxes = inboxes;
        this.keys = keys;
        this.listener = listener;
        this.busyBackoff = busyBackoff;
        this.counts = counts;
    }

    @Override
    public CompletableFuture<Void> onMessage(Message<T> message) {
        SpringInbox inbox;
        String id;
        InboxClaim claim;
        try {
            inbox = inboxes.apply(queueOf(message));
            id = keyOf(message, inbox);
            claim = inbox.claim(id);
        } catch (RuntimeException noKeyOrStoreDown) {
            return CompletableFuture.failedFuture(noKeyOrStoreDown);
        }
        return decide(message, inbox, id, claim);
    }

    /** What a claim's answer comes to: the listener for a new event, done for a duplicate, a wait for a busy one. */
    private CompletableFuture<Void> decide(Message<T> message, SpringInbox inbox, String id, InboxClaim claim) {
        switch (claim.status()) {
            case DUPLICATE:
                counts.record(DeliveryOutcome.DUPLICATE, inbox);
                return CompletableFuture.completedFuture(null);
            case BUSY:
                counts.record(DeliveryOutcome.BUSY, inbox);
                return whileBusy(message, inbox, id);
            default:
                break;
        }
        ScheduledFuture<?> invisible =
                keepInvisible(message, id, inbox.inbox().lease(), inbox.inbox().maxInHand());
        CompletableFuture<Void> work;
        try {
            work = listener.onMessage(message);
        } catch (RuntimeException | Error failure) {
            stop(invisible);
            claim.releaseAfterFailure(failure);
            throw failure;
        }
        return work.whenComplete((done, failure) -> {
            stop(invisible);
            if (failure != null) {
                claim.releaseAfterFailure(failure);
            } else {
                counts.record(DeliveryOutcome.PROCESSED, inbox);
                claim.completeAfterWork();
            }
        });
    }

    /**
     * Keeps a busy message in hand — its visibility extended as for work in progress — and claims
     * it again every busy back-off until the other delivery lets go. Handed back to the queue
     * instead, each BUSY answer would be one more receive towards the redrive policy's {@code
     * maxReceiveCount}, and a holder that keeps the event long enough would get the message
     * dead-lettered unapplied.
     */
    private CompletableFuture<Void> whileBusy(Message<T> message, SpringInbox inbox, String id) {
        ScheduledFuture<?> invisible =
                keepInvisible(message, id, inbox.inbox().lease(), inbox.inbox().maxInHand());
        CompletableFuture<InboxClaim> answered = new CompletableFuture<>();
        claimAgainLater(inbox, id, answered);
        return answered.whenComplete((claim, failure) -> stop(invisible))
                .thenCompose(claim -> decide(message, inbox, id, claim));
    }

    private void claimAgainLater(SpringInbox inbox, String id, CompletableFuture<InboxClaim> answered) {
        CompletableFuture.delayedExecutor(busyBackoff.toMillis(), TimeUnit.MILLISECONDS, Rechecks.WORKERS)
                .execute(() -> {
                    try {
                        InboxClaim claim = inbox.claim(id);
                        if (claim.status() == dev.inbox.spi.ClaimStatus.BUSY) {
                            counts.record(DeliveryOutcome.BUSY, inbox);
                            claimAgainLater(inbox, id, answered);
                        } else {
                            answered.complete(claim);
                        }
                    } catch (RuntimeException storeDown) {
                        answered.completeExceptionally(storeDown);
                    }
                });
    }

    /**
     * Refused: batch listeners ({@code ListenerMode.BATCH}) are not deduplicated message by
     * message; {@link InboxSqsListeners} refuses such containers at startup.
     */
    @Override
    public CompletableFuture<Void> onMessage(Collection<Message<T>> messages) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                "inbox deduplicates single-message SQS listeners; this container is in batch mode"));
    }

    private static String queueOf(Message<?> message) {
        if (!(message.getHeaders().get(SqsHeaders.SQS_QUEUE_NAME_HEADER) instanceof String queue) || queue.isEmpty()) {
            throw new IllegalStateException("message " + message.getHeaders().getId() + " carries no "
                    + SqsHeaders.SQS_QUEUE_NAME_HEADER + " header: not from a Spring Cloud AWS SQS container");
        }
        return queue;
    }

    private String keyOf(Message<T> message, SpringInbox inbox) {
        Object source = message.getHeaders().get(SqsHeaders.SQS_SOURCE_DATA_HEADER);
        if (!(source instanceof software.amazon.awssdk.services.sqs.model.Message received)) {
            throw new IllegalStateException("message " + message.getHeaders().getId() + " carries no "
                    + SqsHeaders.SQS_SOURCE_DATA_HEADER + " header: not from a Spring Cloud AWS SQS container");
        }
        SqsMessage sqs = SqsMessage.of(received);
        String id;
        try {
            id = keys.keyOf(sqs);
            if (id != null) {
                InboxKey.of(inbox.inbox().consumer(), id);
            }
        } catch (RuntimeException invalid) {
            throw new IllegalArgumentException(
                    sqs + " has no valid dedup key (" + invalid.getMessage() + "): not processed, left to the"
                            + " queue's redrive policy",
                    invalid);
        }
        if (id == null) {
            throw new IllegalArgumentException(sqs + " has no dedup key: it carries none of what the configured"
                    + " SqsKeys read (set inbox.sqs.key-header, or SqsKeys, to where your producer puts its id);"
                    + " not processed, left to the queue's redrive policy");
        }
        return id;
    }

    /**
     * Sets the message's visibility timeout to the lease every third of the lease while its work runs,
     * for at most the inbox's {@code maxInHand} (then the queue hands it out again: a listener that
     * never returns does not keep it for ever); null when the container gave the message no {@link
     * Visibility}.
     */
    private @Nullable ScheduledFuture<?> keepInvisible(
            Message<T> message, String id, Duration lease, Duration maxInHand) {
        if (!(message.getHeaders().get(SqsHeaders.SQS_VISIBILITY_TIMEOUT_HEADER) instanceof Visibility visibility)) {
            return null;
        }
        int timeout = Invisibility.seconds(lease);
        return Invisibility.keep(
                lease,
                maxInHand,
                () -> log.warn("the message of " + id + " has been in hand for more than " + maxInHand
                        + " (the inbox's maxInHand): its visibility is no longer extended"),
                () -> extend(visibility, timeout, id));
    }

    private void extend(Visibility visibility, int timeout, String id) {
        try {
            visibility.changeToAsync(timeout).exceptionally(failure -> {
                warnNotExtended(id, failure);
                return null;
            });
        } catch (RuntimeException failure) {
            warnNotExtended(id, failure); // thrown out of the task, it would end the extensions
        }
    }

    private void warnNotExtended(String id, Throwable failure) {
        log.warn(
                "could not extend the visibility of the message of " + id + " while its work runs;"
                        + " the queue may hand it out again (the inbox then answers BUSY)",
                failure);
    }

    private static void stop(@Nullable ScheduledFuture<?> invisible) {
        if (invisible != null) {
            invisible.cancel(false);
        }
    }

    /**
     * Where busy messages are claimed again: a bounded pool of daemon threads, each claim handed to
     * it after the busy back-off by the JDK's delayed executor, so that a slow store call delays no
     * visibility extension and no other claim.
     */
    private static final class Rechecks {

        static final java.util.concurrent.ExecutorService WORKERS = create();

        private static java.util.concurrent.ExecutorService create() {
            java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(
                    4, 4, 30, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), task -> {
                        Thread thread = new Thread(task, "inbox-sqs-busy-recheck");
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }

    /** What this listener did with the messages it saw. */
    public ListenerCounts counts() {
        return counts;
    }

    @Override
    public String toString() {
        return "InboxSqsListener[" + listener + "]";
    }
}
