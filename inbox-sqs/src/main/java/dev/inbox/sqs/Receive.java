package dev.inbox.sqs;

import dev.inbox.DeliveryOutcome;
import dev.inbox.FailurePolicy;
import dev.inbox.InboxStoreException;
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
import software.amazon.awssdk.services.sqs.model.Message;

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

    /** The receive's batch calls to SQS: visibility extended, messages deleted or put back. */
    private final Settlement settlement;
    /** Where a message without a usable key goes. */
    private final DeadLetters deadLetters;

    Receive(SqsInboxLoop loop, List<Message> received, QueueSettings settings) {
        this.loop = loop;
        for (Message message : received) {
            messages.add(SqsMessage.of(message));
        }
        this.settings = settings;
        this.settlement = new Settlement(loop.sqs, loop.queueUrl, messages, loop::quietWhenStopping);
        this.deadLetters = new DeadLetters(loop.sqs, loop.deadLetterQueue, settings);
        this.fates = new Fate[received.size()];
        this.delays = new Duration[received.size()];
        java.util.Arrays.fill(fates, Fate.PENDING);
    }

    void handle() {
        List<Integer> keyed = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        // FIFO: where a message without a key stays on the queue, the later ones of its group wait
        Map<String, Integer> keylessLeft = new HashMap<>();
        sortByKey(keyed, ids, keylessLeft);
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
        try {
            runInOrder(batch, keyed, ids, keylessLeft);
        } finally {
            renewing.cancel(false);
            complete(batch);
            settle();
        }
    }

    /**
     * Sorts the receive's messages into those with a key ({@code keyed}, their {@code ids}) and those
     * without, which are dead-lettered at once — or left on the queue, noted by FIFO group in {@code
     * keylessLeft}.
     */
    private void sortByKey(List<Integer> keyed, List<String> ids, Map<String, Integer> keylessLeft) {
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
    }

    /**
     * Runs the claimed messages in order; a FIFO group stops at its first message that is put back
     * (or left without a key): its later messages are given back and put back with it. When the
     * loop stops, what is not begun is given back and made visible at once; so is everything not yet
     * decided when something unexpected is thrown.
     */
    private void runInOrder(
            Processor.Batch batch, List<Integer> keyed, List<String> ids, Map<String, Integer> keylessLeft) {
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
                Duration putBackFor = run(batch, next, i, ids.get(next));
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
    private @Nullable Duration run(Processor.Batch batch, int index, int i, String id) {
        // The message's own span, in the publisher's trace (its attributes); the receive's
        // claimAll and completeAll are spans of their own.
        try (dev.inbox.InboxObserver.Step receipt = loop.processor.receive(messages.get(i))) {
            Duration putBack = runObserved(batch, index, i, id);
            receipt.outcome(putBack == null ? "done" : "put_back");
            return putBack;
        }
    }

    private @Nullable Duration runObserved(Processor.Batch batch, int index, int i, String id) {
        dev.inbox.HandleOutcome outcome;
        try {
            outcome = outcomeHeldInPlace(batch, index, i);
        } catch (InboxStoreException stopped) {
            return later(i, loop.failureBackoff); // the loop stops with the store down: put back
        } catch (Exception workFailed) {
            return failed(i, id, workFailed);
        }
        if (outcome != dev.inbox.HandleOutcome.BUSY && loop.attempts != null && loop.attempts.any()) {
            loop.attempts.forget(id); // failed before, done now
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
     * Work that threw (its claim released): put back after the failure back-off — the failure
     * policy's, when one was set, and once that policy gives up on the event, sent to the
     * dead-letter queue and deleted. Without a dead-letter queue (or when SQS does not take the
     * copy) it is put back all the same: never dropped.
     */
    private @Nullable Duration failed(int i, String id, Exception workFailed) {
        FailurePolicy.Attempts attempts = loop.attempts;
        if (attempts == null) {
            LOG.log(Level.WARNING, "the work of " + messages.get(i) + " failed; it is put back", workFailed);
            loop.counts.record(DeliveryOutcome.FAILED);
            return later(i, loop.failureBackoff);
        }
        int failed = attempts.failed(id);
        if (attempts.policy().givesUpAfter(failed)) {
            LOG.log(
                    Level.WARNING,
                    "the work of " + messages.get(i) + " failed " + failed + " times; the failure policy gives up"
                            + " on it",
                    workFailed);
            if (sentToDeadLetters(i)) {
                attempts.forget(id);
                loop.counts.record(DeliveryOutcome.DEAD_LETTERED);
                decide(i, Fate.DELETE, null);
                return null;
            }
        } else {
            LOG.log(Level.WARNING, "the work of " + messages.get(i) + " failed; it is put back", workFailed);
        }
        loop.counts.record(DeliveryOutcome.FAILED);
        return later(i, attempts.policy().backoffAfter(failed));
    }

    /**
     * Runs one message, holding it in place (its visibility renewed) while another delivery holds
     * its event (claimed again every busy back-off) or the store cannot answer (tried again every
     * failure back-off), until the loop stops. Before the first wait the receive records what it
     * has done and lets go of the claims it has not begun ({@link Processor.Batch#beforeWaiting}),
     * so that two consumers never wait on each other. Never put back for those: each receive counts
     * towards the redrive policy's {@code maxReceiveCount}, and a long-held event or a store
     * outage would get the message dead-lettered unapplied.
     *
     * @throws InboxStoreException if the store could not answer and the loop is stopping
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

    /** A message without a usable key: to the dead-letter queue, else left on its queue. */
    private void deadLetter(int i) {
        loop.counts.record(DeliveryOutcome.DEAD_LETTERED);
        decide(i, sentToDeadLetters(i) ? Fate.DELETE : Fate.LEFT, null);
    }

    /** Sends a copy of the message to the dead-letter queue; false (logged) when there is none or SQS refused it. */
    private boolean sentToDeadLetters(int i) {
        if (deadLetters.target() == null) {
            LOG.log(
                    Level.WARNING,
                    "{0} is left on {1} (no dead-letter queue is named or in its redrive policy): it comes back"
                            + " after the visibility timeout",
                    messages.get(i),
                    loop.queueUrl);
            return false;
        }
        try {
            deadLetters.send(messages.get(i));
            return true;
        } catch (SdkException unsent) {
            LOG.log(Level.WARNING, "could not dead-letter " + messages.get(i) + "; it stays on the queue", unsent);
            return false;
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
        Duration maxInHand = loop.processor.maxInHand();
        Runnable abandoned = () -> {
            // A handler that never returns must not keep its messages from everyone for ever.
            LOG.log(
                    Level.WARNING,
                    "a receive of {0} has held its messages for more than {1} (maxInHand): they"
                            + " are no longer renewed, and come back after their visibility timeout",
                    loop.queueUrl,
                    maxInHand);
            loop.processor.renewalsAbandoned();
        };
        return Invisibility.keep(shorter, maxInHand, abandoned, () -> renew(claimed.get(), keyed, visibility));
    }

    private void renew(Processor.@Nullable Batch batch, List<Integer> keyed, Duration visibility) {
        List<Integer> extend = new ArrayList<>();
        for (int k = 0; k < keyed.size(); k++) {
            int i = keyed.get(k);
            if (held.containsKey(i)) {
                if (batch != null) {
                    batch.renew(k); // a message SQS no longer lets this receive extend keeps its claim renewed
                }
                extend.add(i);
            }
        }
        settlement.extend(extend, visibility);
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
        List<Integer> done = new ArrayList<>();
        Map<Integer, Duration> putBack = new java.util.LinkedHashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            switch (fates[i]) {
                case DELETE -> done.add(i);
                case LATER, NOW -> putBack.put(i, delays[i]);
                default -> {}
            }
        }
        settlement.settle(done, putBack);
    }
}
