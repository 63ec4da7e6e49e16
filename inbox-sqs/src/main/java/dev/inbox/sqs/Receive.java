package dev.inbox.sqs;

import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxStoreException;
import dev.inbox.Renewals;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;

/**
 * One receive of an {@link SqsInboxLoop}: its messages, their claims, and what becomes of each —
 * claimed together, run in order (a FIFO group stopping at its first message that is not done),
 * held in place while another delivery holds an event or the store is down, kept renewed (claims
 * and visibility) while in hand, then deleted or put back in one batch call each.
 */
final class Receive {
    private static final System.Logger LOG = System.getLogger(SqsInboxLoop.class.getName());

    private final SqsInboxLoop loop;

    /** What became of one message of a receive. */
    private enum Fate {
        PENDING,
        DELETE,
        LATER,
        NOW,
        LEFT
    }

    private final List<SqsMessage> messages = new ArrayList<>();
    private final QueueSettings settings;
    private final Fate[] fates;
    private final Duration[] delays;
    /**
     * The messages whose claim and visibility the renewals keep: every claimed one until it is put
     * back, and a done one until the receive ends, since it is completed and deleted only then —
     * left unrenewed, another consumer would receive it again and take over its lapsed lease.
     */
    private final Map<Integer, Boolean> held = new ConcurrentHashMap<>();

    /**
     * The messages whose receipt handle SQS no longer takes (it handed them out again, or they
     * were deleted): their visibility is not changed again; their claims are still renewed.
     */
    private final java.util.Set<Integer> staleHandles = ConcurrentHashMap.newKeySet();

    Receive(SqsInboxLoop loop, List<Message> received, QueueSettings settings) {
        this.loop = loop;
        for (Message message : received) {
            messages.add(SqsMessage.of(message));
        }
        this.settings = settings;
        this.fates = new Fate[received.size()];
        this.delays = new Duration[received.size()];
        java.util.Arrays.fill(fates, Fate.PENDING);
    }

    void handle() {
        List<Integer> keyed = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        // FIFO: where a message without a key stays on the queue, the later ones of its group wait
        Map<String, Integer> keylessLeft = new HashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            String id = loop.processor.idOf(loop.keys, messages.get(i));
            if (id == null) {
                deadLetter(i);
                String group = messages.get(i).groupId();
                if (fates[i] == Fate.LEFT && group != null) {
                    keylessLeft.putIfAbsent(group, i);
                }
            } else {
                keyed.add(i);
                ids.add(id);
            }
        }
        if (keyed.isEmpty()) {
            settle();
            return;
        }
        for (int i : keyed) {
            held.put(i, Boolean.TRUE);
        }
        java.util.concurrent.atomic.AtomicReference<Processor.Batch> claimed =
                new java.util.concurrent.atomic.AtomicReference<>();
        ScheduledFuture<?> renewing = renewals(claimed, keyed);
        Processor.Batch batch = claimHeldInPlace(ids, keyed);
        if (batch == null) {
            renewing.cancel(false);
            for (int i : keyed) {
                later(i, loop.failureBackoff);
            }
            settle();
            return;
        }
        claimed.set(batch);
        Map<String, Duration> stoppedGroups = new HashMap<>();
        int next = 0;
        try {
            for (; next < keyed.size(); next++) {
                int i = keyed.get(next);
                String group = messages.get(i).groupId();
                Duration stoppedFor = group == null ? null : stoppedGroups.get(group);
                if (stoppedFor == null && group != null && keylessLeft.getOrDefault(group, i) < i) {
                    stoppedFor = Duration.ZERO; // SQS hands it out again only after the one before it
                }
                if ((loop.stopping || stoppedFor != null) && !batch.decided(next)) {
                    batch.giveBack(next);
                    later(i, loop.stopping ? Duration.ZERO : stoppedFor);
                    continue;
                }
                Duration putBackFor = run(batch, next, i);
                if (putBackFor != null && group != null) {
                    stoppedGroups.put(group, putBackFor);
                }
            }
        } catch (RuntimeException | Error unexpected) {
            for (int k = next; k < keyed.size(); k++) {
                if (fates[keyed.get(k)] == Fate.PENDING) {
                    batch.giveBack(k);
                    later(keyed.get(k), Duration.ZERO);
                }
            }
            throw unexpected;
        } finally {
            renewing.cancel(false);
            complete(batch);
            settle();
        }
    }

    /**
     * Claims the receive's keyed messages, tried again every failure back-off while the store
     * cannot answer (the messages held, their visibility renewed); null when the loop stops first.
     */
    private Processor.@Nullable Batch claimHeldInPlace(List<String> ids, List<Integer> keyed) {
        while (true) {
            try {
                return loop.processor.claim(ids, Processor.at(messages, keyed));
            } catch (InboxStoreException storeDown) {
                LOG.log(
                        Level.WARNING,
                        "the store could not claim a receive; tried again in " + loop.failureBackoff
                                + ", the messages held",
                        storeDown);
                loop.counts.record(DeliveryOutcome.STORE_FAILED, keyed.size());
                if (loop.stopping || !SqsInboxLoop.pause(loop.failureBackoff)) {
                    return null;
                }
            }
        }
    }

    /** Runs one message; returns how long it is put back for, or null when it is done. */
    private @Nullable Duration run(Processor.Batch batch, int index, int i) {
        // The message's own span, in the publisher's trace (its attributes); the receive's
        // claimAll and completeAll are spans of their own.
        try (dev.inbox.InboxObserver.Step receipt = loop.processor.receive(messages.get(i))) {
            Duration putBack = runObserved(batch, index, i);
            receipt.outcome(putBack == null ? "done" : "put_back");
            return putBack;
        }
    }

    private @Nullable Duration runObserved(Processor.Batch batch, int index, int i) {
        dev.inbox.HandleOutcome outcome;
        try {
            outcome = outcomeHeldInPlace(batch, index, i);
        } catch (InboxStoreException stopped) {
            return later(i, loop.failureBackoff); // the loop stops with the store down: put back
        } catch (Exception workFailed) {
            LOG.log(Level.WARNING, "the work of " + messages.get(i) + " failed; it is put back", workFailed);
            loop.counts.record(DeliveryOutcome.FAILED);
            return later(i, loop.failureBackoff);
        }
        switch (outcome) {
            case PROCESSED -> {
                loop.counts.record(DeliveryOutcome.PROCESSED);
                decide(i, Fate.DELETE, null);
                return null;
            }
            case DUPLICATE -> {
                loop.counts.record(DeliveryOutcome.DUPLICATE);
                decide(i, Fate.DELETE, null);
                return null;
            }
            default -> {
                loop.counts.record(DeliveryOutcome.BUSY);
                return later(i, loop.busyBackoff);
            }
        }
    }

    /**
     * Runs one message, holding it in place (its visibility renewed) while another delivery holds
     * its event (claimed again every busy back-off) or the store cannot answer (tried again every
     * failure back-off), until the loop stops. Before the first wait the receive records what it
     * has done and lets go of the claims it has not begun ({@link Processor.Batch#beforeWaiting}),
     * so that two consumers never wait on each other. Never put back for those: each receive loop.counts
     * towards the redrive policy's {@code maxReceiveCount}, and a long-held event or a store
     * outage would get the message dead-lettered unapplied.
     *
     * @throws InboxStoreException if the store could not answer and the loop is loop.stopping
     * @throws Exception what the work threw, its claim released
     */
    private dev.inbox.HandleOutcome outcomeHeldInPlace(Processor.Batch batch, int index, int i) throws Exception {
        boolean first = true;
        boolean waited = false;
        while (true) {
            dev.inbox.HandleOutcome outcome;
            try {
                outcome = first ? batch.run(index, messages.get(i)) : batch.retry(index, messages.get(i));
            } catch (InboxStoreException storeDown) {
                LOG.log(
                        Level.WARNING,
                        "the store could not answer for " + messages.get(i) + "; tried again in " + loop.failureBackoff
                                + ", the message held",
                        storeDown);
                loop.counts.record(DeliveryOutcome.STORE_FAILED);
                if (loop.stopping) {
                    throw storeDown;
                }
                waited = beforeWaiting(batch, index, waited);
                if (!SqsInboxLoop.pause(loop.failureBackoff)) {
                    throw storeDown;
                }
                first = false;
                continue;
            }
            if (outcome != dev.inbox.HandleOutcome.BUSY || loop.stopping) {
                return outcome;
            }
            loop.counts.record(DeliveryOutcome.BUSY);
            waited = beforeWaiting(batch, index, waited);
            if (!SqsInboxLoop.pause(loop.busyBackoff)) {
                return outcome;
            }
            first = false;
        }
    }

    /** Lets the batch record what is done and let go of what is not begun, once, before the first wait. */
    private boolean beforeWaiting(Processor.Batch batch, int index, boolean waited) {
        if (!waited) {
            batch.beforeWaiting(index);
        }
        return true;
    }

    private void deadLetter(int i) {
        loop.counts.record(DeliveryOutcome.DEAD_LETTERED);
        String target = loop.deadLetterQueue != null ? loop.deadLetterQueue : settings.deadLetterQueueUrl();
        Message message = messages.get(i).message();
        if (target == null) {
            LOG.log(
                    Level.WARNING,
                    "{0} without a usable key is left on {1} (no dead-letter queue is named or in its"
                            + " redrive policy): it comes back after the visibility timeout",
                    messages.get(i),
                    loop.queueUrl);
            decide(i, Fate.LEFT, null);
            return;
        }
        try {
            SendMessageRequest.Builder send = SendMessageRequest.builder()
                    .queueUrl(target)
                    .messageBody(message.body())
                    .messageAttributes(message.messageAttributes());
            if (target.endsWith(".fifo")) {
                String group = messages.get(i).groupId();
                send.messageGroupId(group != null ? group : "inbox-dead-letters")
                        .messageDeduplicationId(message.messageId());
            }
            loop.sqs.sendMessage(send.build());
            decide(i, Fate.DELETE, null);
        } catch (SdkException unsent) {
            LOG.log(Level.WARNING, "could not dead-letter " + messages.get(i) + "; it stays on the queue", unsent);
            decide(i, Fate.LEFT, null);
        }
    }

    private Duration later(int i, Duration delay) {
        decide(i, delay.isZero() ? Fate.NOW : Fate.LATER, delay);
        return delay;
    }

    private void decide(int i, Fate fate, @Nullable Duration delay) {
        fates[i] = fate;
        delays[i] = delay;
        if (fate != Fate.DELETE) {
            held.remove(i); // a done message stays held until it is completed and deleted
        }
    }

    /**
     * Renews the visibility of what is still held, and its claims once {@code claimed} has the
     * receive's batch, every third of the shorter of the lease and the visibility timeout.
     */
    private ScheduledFuture<?> renewals(
            java.util.concurrent.atomic.AtomicReference<Processor.Batch> claimed, List<Integer> keyed) {
        Duration visibility = loop.receiveVisibility;
        Duration shorter =
                loop.processor.lease().isZero() || loop.processor.lease().compareTo(visibility) > 0
                        ? visibility
                        : loop.processor.lease();
        Duration every = Duration.ofMillis(Math.max(1, shorter.toMillis() / 3));
        Duration maxInHand = loop.processor.maxInHand();
        Renewals.InHand inHand = new Renewals.InHand(System.nanoTime(), maxInHand, () -> {
            // A handler that never returns must not keep its messages from everyone for ever.
            LOG.log(
                    Level.WARNING,
                    "a receive of {0} has held its messages for more than {1} (maxInHand): they"
                            + " are no longer renewed, and come back after their visibility timeout",
                    loop.queueUrl,
                    maxInHand);
            loop.processor.renewalsAbandoned();
        });
        return Renewals.shared().every(every, every, inHand, () -> renew(claimed.get(), keyed, visibility));
    }

    private void renew(Processor.@Nullable Batch batch, List<Integer> keyed, Duration visibility) {
        List<ChangeMessageVisibilityBatchRequestEntry> extend = new ArrayList<>();
        for (int k = 0; k < keyed.size(); k++) {
            int i = keyed.get(k);
            if (held.containsKey(i)) {
                if (batch != null) {
                    batch.renew(k);
                }
                if (!staleHandles.contains(i)) {
                    extend.add(visibility(i, visibility));
                }
            }
        }
        changeVisibility(extend);
    }

    private void complete(Processor.Batch batch) {
        try {
            batch.complete();
        } catch (InboxStoreException notRecorded) {
            // The work ran: handed out again, it would be applied again once the lease ends.
            LOG.log(
                    Level.WARNING,
                    "the work of a receive ran but its completion could not be recorded; the messages are" + " deleted",
                    notRecorded);
        }
    }

    /** Deletes what is done and puts back the rest, in one batch call each. */
    private void settle() {
        List<DeleteMessageBatchRequestEntry> delete = new ArrayList<>();
        List<ChangeMessageVisibilityBatchRequestEntry> putBack = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            switch (fates[i]) {
                case DELETE ->
                    delete.add(DeleteMessageBatchRequestEntry.builder()
                            .id(Integer.toString(i))
                            .receiptHandle(messages.get(i).message().receiptHandle())
                            .build());
                case LATER, NOW -> putBack.add(visibility(i, delays[i]));
                default -> {}
            }
        }
        if (!delete.isEmpty()) {
            try {
                var response = loop.sqs.deleteMessageBatch(
                        r -> r.queueUrl(loop.queueUrl).entries(delete));
                if (response.hasFailed() && !response.failed().isEmpty()) {
                    LOG.log(
                            Level.WARNING,
                            "SQS did not delete {0} done messages; when handed out again they are answered"
                                    + " as duplicates: {1}",
                            response.failed().size(),
                            response.failed());
                }
            } catch (SdkException notDeleted) {
                LOG.log(
                        loop.quietWhenStopping(),
                        "deleting done messages failed; when handed out again they are answered as duplicates",
                        notDeleted);
            }
        }
        changeVisibility(putBack);
    }

    private ChangeMessageVisibilityBatchRequestEntry visibility(int i, Duration delay) {
        return ChangeMessageVisibilityBatchRequestEntry.builder()
                .id(Integer.toString(i))
                .receiptHandle(messages.get(i).message().receiptHandle())
                .visibilityTimeout(SqsInboxLoop.seconds(delay))
                .build();
    }

    private void changeVisibility(List<ChangeMessageVisibilityBatchRequestEntry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        changeVisibility(entries, true);
    }

    /**
     * One {@code ChangeMessageVisibilityBatch}; entries SQS failed on its side ({@code senderFault}
     * false) are sent once more when {@code again}, and what still failed is logged with SQS's
     * codes: such a message may be handed out again before its work is done (its claim is still
     * renewed, so that delivery finds it BUSY), and a receipt handle that is no longer valid means
     * it already was.
     */
    private void changeVisibility(List<ChangeMessageVisibilityBatchRequestEntry> entries, boolean again) {
        software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse response;
        try {
            response = loop.sqs.changeMessageVisibilityBatch(
                    r -> r.queueUrl(loop.queueUrl).entries(entries));
        } catch (SdkException failed) {
            LOG.log(
                    loop.quietWhenStopping(),
                    "changing the visibility of " + entries.size() + " messages failed; they come back after"
                            + " the visibility timeout",
                    failed);
            return;
        }
        if (!response.hasFailed() || response.failed().isEmpty()) {
            return;
        }
        List<ChangeMessageVisibilityBatchRequestEntry> retry = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (var failed : response.failed()) {
            ChangeMessageVisibilityBatchRequestEntry entry = entries.stream()
                    .filter(e -> e.id().equals(failed.id()))
                    .findFirst()
                    .orElse(null);
            if (again && entry != null && !Boolean.TRUE.equals(failed.senderFault())) {
                retry.add(entry);
            } else {
                String which = entry == null
                        ? failed.id()
                        : messages.get(Integer.parseInt(entry.id())).toString();
                refused.add(which + ": " + failed.code() + " " + failed.message());
                if (entry != null && "ReceiptHandleIsInvalid".equals(failed.code())) {
                    staleHandles.add(Integer.parseInt(entry.id())); // no later change can succeed
                }
            }
        }
        if (!refused.isEmpty()) {
            LOG.log(
                    loop.quietWhenStopping(),
                    "SQS did not change the visibility of {0} messages of {1}; each may be handed out again"
                            + " (another delivery then finds its event held, or done): {2}",
                    refused.size(),
                    loop.queueUrl,
                    refused);
        }
        if (!retry.isEmpty()) {
            changeVisibility(retry, false);
        }
    }
}
