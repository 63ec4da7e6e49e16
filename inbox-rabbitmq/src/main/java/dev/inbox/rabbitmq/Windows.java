package dev.inbox.rabbitmq;

import com.rabbitmq.client.Delivery;
import dev.inbox.DeliveryOutcome;
import dev.inbox.HandleOutcome;
import dev.inbox.InboxStoreException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link InboxConsumer}'s windows ({@link InboxConsumer.Builder#window}): deliveries gathered until
 * the window is full or its linger passed, applied in one database transaction, and each one that
 * is done acknowledged after the commit (with one multiple acknowledgement where {@link
 * Acknowledgements} says that settles exactly them). What one delivery of a window comes to is what
 * it comes to alone: a busy one, or each after a store failure, is held and handled again alone; a
 * work failure rolls the window back and applies it one by one; an {@code Error} rolls it back and
 * requeues all of it. Every method is called holding the consumer's lock.
 */
final class Windows {

    private static final System.Logger LOG = System.getLogger(Windows.class.getName());

    /**
     * The flushes of windows that did not fill within their linger: daemon threads, never shut
     * down, one per processor, so that one consumer's slow transaction holds back few others.
     */
    private static final ScheduledExecutorService LINGERS =
            Executors.newScheduledThreadPool(Runtime.getRuntime().availableProcessors(), r -> {
                Thread t = new Thread(r, "inbox-rabbitmq-window");
                t.setDaemon(true);
                return t;
            });

    /** Runs a window of deliveries through the inbox in one transaction ({@code TransactionalInbox.handleAll}). */
    @FunctionalInterface
    interface Handling {
        List<HandleOutcome> handleAll(List<String> keys, List<Delivery> deliveries) throws Exception;
    }

    private final InboxConsumer consumer;
    private final Handling handling;
    private final int size;
    private final Duration linger;
    private final Acknowledgements acknowledgements;
    /** Deliveries of the window being gathered. */
    private final List<Delivery> pending = new ArrayList<>();
    /** The flush of the window being gathered, if it does not fill first. */
    private @Nullable ScheduledFuture<?> lingering;

    Windows(InboxConsumer consumer, Handling handling, int size, Duration linger, Acknowledgements acknowledgements) {
        this.consumer = consumer;
        this.handling = handling;
        this.size = size;
        this.linger = linger;
        this.acknowledgements = acknowledgements;
    }

    /** A delivery arrived: gathered, and the window applied once full. */
    void add(Delivery delivery) throws IOException {
        acknowledgements.received(delivery.getEnvelope().getDeliveryTag());
        pending.add(delivery);
        if (pending.size() >= size) {
            flush();
        } else if (pending.size() == 1) {
            lingering = LINGERS.schedule(
                    () -> consumer.underLock(
                            "a window of deliveries", System.Logger.Level.WARNING, this::flushLingering),
                    linger.toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    /** The window did not fill within the linger: applied as it is. */
    private void flushLingering() throws IOException {
        if (!pending.isEmpty()) {
            flush();
        }
    }

    /** The consumer stops: a window still gathering has not begun, and goes back to the queue untouched. */
    void handBack() throws IOException {
        cancelLinger();
        for (Delivery delivery : pending) {
            if (consumer.getChannel().isOpen()) {
                acknowledgements.reject(delivery.getEnvelope().getDeliveryTag(), true);
            }
        }
        pending.clear();
    }

    /** Applies the deliveries gathered in one transaction and acknowledges each done one after the commit. */
    private void flush() throws IOException {
        cancelLinger();
        if (!consumer.getChannel().isOpen()) {
            // Closed under the window (an Error, a lost connection): the broker redelivers all of it,
            // so its work would be done for nothing.
            pending.clear();
            return;
        }
        List<Delivery> deliveries = new ArrayList<>(pending.size());
        List<String> ids = new ArrayList<>(pending.size());
        for (Delivery delivery : pending) {
            String key = consumer.keyOrSetAside(delivery);
            if (key != null) {
                deliveries.add(delivery);
                ids.add(key);
            }
        }
        pending.clear();
        int from = 0;
        while (from < deliveries.size()) {
            from = apply(ids, deliveries, from);
        }
    }

    /**
     * Applies the deliveries from {@code from} on in one transaction and settles each: returns where
     * the next transaction starts (the end, unless a store failure or a failed work sent the rest to
     * be handled alone).
     */
    private int apply(List<String> ids, List<Delivery> deliveries, int from) throws IOException {
        List<Delivery> rest = deliveries.subList(from, deliveries.size());
        List<HandleOutcome> outcomes;
        try {
            outcomes = handling.handleAll(ids.subList(from, ids.size()), rest);
        } catch (InboxStoreException storeDown) {
            // The commit may have happened or not: nothing is acknowledged; each delivery is held and
            // handled again alone (a duplicate, if the commit happened), never requeued.
            LOG.log(
                    System.Logger.Level.WARNING,
                    "the inbox store failed on a window of " + rest.size() + " deliveries; each held and tried"
                            + " again alone",
                    storeDown);
            for (int i = from; i < deliveries.size(); i++) {
                consumer.hold(ids.get(i), deliveries.get(i), DeliveryOutcome.STORE_FAILED);
            }
            return deliveries.size();
        } catch (Exception workFailed) {
            // Rolled back, every claim and write: one by one instead, where the failing one fails alone.
            for (int i = from; i < deliveries.size(); i++) {
                consumer.handle(ids.get(i), deliveries.get(i));
            }
            return deliveries.size();
        } catch (Error error) {
            // Rolled back; nothing of the window is acknowledged, and the Error closes the channel.
            consumer.failed(rest);
            throw error;
        }
        List<Long> acks = new ArrayList<>(outcomes.size());
        List<HandleOutcome> settled = new ArrayList<>(outcomes.size());
        int i = from;
        for (HandleOutcome outcome : outcomes) {
            Delivery delivery = deliveries.get(i);
            if (outcome == HandleOutcome.BUSY) {
                consumer.hold(ids.get(i), delivery, DeliveryOutcome.BUSY); // alone: its tag stays unsettled
            } else {
                settled.add(outcome);
                acks.add(delivery.getEnvelope().getDeliveryTag());
            }
            i++;
        }
        acknowledgements.ackAll(acks);
        settled.forEach(consumer::settled); // counted once sent: acknowledgements that failed come back
        return i;
    }

    private void cancelLinger() {
        if (lingering != null) {
            lingering.cancel(false);
            lingering = null;
        }
    }
}
