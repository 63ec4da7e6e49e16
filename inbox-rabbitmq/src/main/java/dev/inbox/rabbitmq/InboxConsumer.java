package dev.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.inbox.CompletionFailedException;
import dev.inbox.Deliveries;
import dev.inbox.DeliveryOutcome;
import dev.inbox.FailurePolicy;
import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxObserver;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.spi.DeliveryCounts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A manual-ack consumer that runs each delivery through an {@link Inbox}: the first delivery of an
 * event runs its work, and a redelivery or a producer's re-send of it is acknowledged as a
 * duplicate — in lease mode unless a crash fell between the work and its record (the event is then
 * applied again); in {@linkplain #transactional transactional mode} with no such window.
 *
 * <pre>{@code
 * channel.basicQos(50);
 * InboxConsumer consumer = InboxConsumer.builder(channel, inbox, delivery -> apply(delivery.getBody())).build();
 * channel.basicConsume("orders", false, consumer); // autoAck off: the consumer acknowledges
 * }</pre>
 *
 * <table>
 *   <caption>What each delivery comes to</caption>
 *   <tr><th>outcome</th><th>acknowledgement</th></tr>
 *   <tr><td>processed, or a duplicate of an applied event</td><td>{@code basicAck}</td></tr>
 *   <tr><td>busy (another delivery holds the event)</td><td>held unacknowledged and handled again
 *       after {@link Builder#busyRequeueDelay}, again and again until the holder lets go, while the
 *       consumer goes on with the messages after it — never acknowledged, since the other attempt may
 *       fail, and never requeued, since a quorum queue counts each requeue towards its {@code
 *       x-delivery-limit}; requeued when the consumer stops. In {@linkplain Builder#window windows}
 *       the same: held, and handled again alone</td></tr>
 *   <tr><td>the work threw an {@code Exception} (its claim released)</td><td>{@code basicNack}: requeued
 *       after the {@linkplain Builder#failurePolicy failure policy}'s back-off (default: the delay,
 *       for ever), or, once the policy gives up, not requeued: to the queue's dead-letter
 *       exchange</td></tr>
 *   <tr><td>the work threw an {@code Error} (its claim released)</td><td>{@code basicNack} with requeue
 *       at once, and the {@code Error} is rethrown (amqp-client then closes the channel)</td></tr>
 *   <tr><td>the store could not answer the claim</td><td>held and handled again after the delay,
 *       as a busy one (in windows: each delivery of the window, alone)</td></tr>
 *   <tr><td>the work ran, but its completion could not be recorded ({@link
 *       dev.inbox.CompletionFailedException}, after the inbox's retries)</td><td>{@code basicAck}: a
 *       requeue would apply the work again once the lease ends</td></tr>
 *   <tr><td>no usable key ({@link MessageKeys} found none, threw, or gave one that is not a valid
 *       key)</td><td>never processed without deduplication: held unacknowledged, logged, requeued
 *       when the consumer stops ({@link KeylessMessages#HOLD}, the default: a queue without a
 *       dead-letter exchange would drop a rejected message); or, with {@link
 *       Builder#keylessMessages keylessMessages(DEAD_LETTER)}, {@code basicReject} without requeue,
 *       to the queue's dead-letter exchange</td></tr>
 * </table>
 *
 * <p>{@link #stop(Duration)} stops gracefully: the delivery in hand is finished and acknowledged,
 * the ones already sent to this consumer are handed back untouched. The consumer survives
 * amqp-client's automatic recovery (the recovered channel registers it again).
 *
 * <p>A channel or connection lost while the work runs leaves the message unacknowledged: the
 * broker redelivers it, and the inbox answers that delivery from the record (DUPLICATE once the
 * work completed, or after the claim's lease).
 *
 * <p>{@link #transactional(Channel, TransactionalInbox, TransactionalMessageHandler)} claims each
 * message inside a database transaction together with the handler's writes and acknowledges it
 * after the commit: a consumer that dies before the commit leaves neither the writes nor the
 * record, and the broker redelivers the message — exactly once for effects in that database. With
 * {@link Builder#window(int, Duration)} it applies a window of deliveries in one transaction (one
 * commit for many messages) and acknowledges each after that commit.
 */
public final class InboxConsumer extends DefaultConsumer {

    private static final System.Logger LOG = System.getLogger(InboxConsumer.class.getName());

    private final String consumer;
    private final Handling handling;
    private final DeliveryKeys keys;

    private final Duration busyDelay;
    /** The failed attempts of each event whose work threw, by its dedup key. */
    private final FailurePolicy.Attempts attempts;
    /**
     * The delayed requeues of every consumer: one daemon thread, never shut down, so that a channel
     * recovered by amqp-client (which registers the same consumer again) keeps requeueing.
     */
    private static final ScheduledExecutorService REQUEUES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "inbox-rabbitmq-requeue");
        t.setDaemon(true);
        return t;
    });

    /**
     * Where held deliveries are handled again ({@link #hold}): four daemon threads, never shut
     * down, each taking a consumer's lock in turn with its delivery thread.
     */
    private static final java.util.concurrent.ExecutorService RETRIES = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "inbox-rabbitmq-retry");
        t.setDaemon(true);
        return t;
    });

    /** The windows of a windowed consumer ({@link Builder#window}); null for one delivery at a time. */
    private final @Nullable Windows windows;
    /** How deliveries are settled, and which of a window's are not yet. */
    private final Acknowledgements acknowledgements;

    private final ReentrantLock inHand = new ReentrantLock();
    private volatile boolean stopping;
    private final DeliveryCounts counts;
    private final InboxObserver observer;

    private InboxConsumer(Builder b) {
        super(b.channel);
        this.consumer = b.consumer;
        this.observer = b.observer;
        this.counts = new DeliveryCounts(b.consumer, b.metrics);
        this.handling = b.handling;
        this.busyDelay = b.busyDelay;
        this.attempts = b.failurePolicy().attemptsOf();
        boolean windowed = b.window > 1 && b.windowing != null;
        this.acknowledgements = new Acknowledgements(b.channel, windowed);
        this.keys = new DeliveryKeys(b.consumer, b.keys, b.keyless, acknowledgements, counts);
        this.windows = windowed
                ? new Windows(this, java.util.Objects.requireNonNull(b.windowing), b.window, b.linger, acknowledgements)
                : null;
    }

    /**
     * Starts configuring a consumer on {@code channel} that runs {@code handler} through {@code
     * inbox} in lease mode ({@link Inbox#handleRenewing}): the claim is renewed while the handler
     * runs, so work longer than the lease keeps its event.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder builder(Channel channel, Inbox inbox, MessageHandler handler) {
        if (inbox == null || handler == null) {
            throw new IllegalArgumentException("channel, inbox and handler must not be null");
        }
        Builder builder = new Builder(
                channel,
                inbox.consumer(),
                inbox.metrics(),
                (key, delivery) -> inbox.handleRenewing(key, lease -> handler.handle(delivery)));
        builder.observer = inbox.observer();
        return builder;
    }

    /**
     * Starts configuring a consumer on {@code channel} in transactional mode: each message is
     * claimed through {@code inbox} in a transaction with {@code handler}'s writes, and acknowledged
     * after the commit.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static Builder transactional(
            Channel channel, TransactionalInbox inbox, TransactionalMessageHandler handler) {
        if (inbox == null || handler == null) {
            throw new IllegalArgumentException("channel, inbox and handler must not be null");
        }
        Builder builder = new Builder(
                channel,
                inbox.consumer(),
                inbox.metrics(),
                (key, delivery) -> inbox.handle(key, connection -> handler.handle(delivery, connection)));
        builder.windowing = (keys, deliveries) ->
                inbox.handleAll(keys, (index, connection) -> handler.handle(deliveries.get(index), connection));
        builder.observer = inbox.observer();
        return builder;
    }

    /** Runs one delivery through the inbox: lease or transactional mode. */
    @FunctionalInterface
    private interface Handling {
        HandleResult handle(String key, Delivery delivery) throws Exception;
    }

    /** What a thread other than the delivery thread does holding the consumer's lock. */
    @FunctionalInterface
    interface Held {
        void run() throws IOException;
    }

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
            throws IOException {
        inHand.lock();
        try {
            if (stopping) {
                reject(envelope.getDeliveryTag(), true); // to the next consumer, untouched
                return;
            }
            Delivery delivery = new Delivery(envelope, properties, body);
            if (windows != null) {
                windows.add(delivery);
            } else {
                handle(delivery);
            }
        } finally {
            inHand.unlock();
        }
    }

    /**
     * Runs {@code held} on a thread of the adapter's own (a held delivery handled again, a window
     * whose linger passed), in turn with this consumer's deliveries. What the channel could not
     * settle is logged (the broker redelivers what it left unacknowledged); an {@code Error} closes
     * the channel, as amqp-client does on its delivery thread, so the broker requeues what it held.
     */
    void underLock(String what, System.Logger.Level channelGoneLevel, Held held) {
        inHand.lock();
        try {
            held.run();
        } catch (IOException | RuntimeException channelGone) {
            LOG.log(channelGoneLevel, "could not settle " + what, channelGone);
        } catch (Error error) {
            LOG.log(System.Logger.Level.ERROR, "the work of " + what + " threw an Error; the channel is closed", error);
            try {
                getChannel().abort();
            } catch (IOException | RuntimeException closing) {
                error.addSuppressed(closing);
            }
        } finally {
            inHand.unlock();
        }
    }

    /** The delivery's dedup key, or null once a delivery without a usable one was set aside ({@link DeliveryKeys}). */
    @Nullable
    String keyOrSetAside(Delivery delivery) throws IOException {
        return keys.keyOrSetAside(delivery);
    }

    private void handle(Delivery delivery) throws IOException {
        String key = keyOrSetAside(delivery);
        if (key != null) {
            handle(key, delivery);
        }
    }

    void handle(String key, Delivery delivery) throws IOException {
        // The producer's trace context, from the message's headers, is the parent of the event's steps.
        try (InboxObserver.Step receipt = observer.receive(consumer, "rabbitmq", name -> header(delivery, name))) {
            handleObserved(key, delivery, receipt);
        }
    }

    private static @Nullable String header(Delivery delivery, String name) {
        java.util.Map<String, Object> headers = delivery.getProperties().getHeaders();
        Object value = headers == null ? null : headers.get(name);
        return value == null ? null : value.toString(); // amqp-client reads strings as LongString
    }

    private void handleObserved(String key, Delivery delivery, InboxObserver.Step receipt) throws IOException {
        long deliveryTag = delivery.getEnvelope().getDeliveryTag();
        HandleResult result;
        try {
            result = handling.handle(key, delivery);
        } catch (CompletionFailedException workRan) {
            // Requeued, the message would be applied again once the lease ends: acknowledged instead.
            LOG.log(System.Logger.Level.WARNING, workRan.getMessage() + "; the message is acknowledged", workRan);
            counts.record(DeliveryOutcome.PROCESSED); // the work ran; the inbox reported the store's error
            receipt.outcome("processed");
            ack(deliveryTag);
            return;
        } catch (InboxStoreException storeDown) {
            receipt.error(storeDown);
            LOG.log(
                    System.Logger.Level.WARNING,
                    "the inbox store could not answer for " + delivery.getEnvelope() + "; held and tried again in "
                            + busyDelay,
                    storeDown);
            hold(key, delivery, DeliveryOutcome.STORE_FAILED);
            return;
        } catch (Exception workFailed) {
            receipt.error(workFailed);
            failed(key, deliveryTag);
            return;
        } catch (Error error) {
            receipt.error(error);
            // Its claim was released; nothing is acknowledged past it. amqp-client closes the channel,
            // and the broker requeues what it held.
            counts.record(DeliveryOutcome.FAILED);
            nack(deliveryTag, true);
            throw error;
        }
        receipt.outcome(result.outcome().name().toLowerCase(java.util.Locale.ROOT));
        if (result.outcome() != HandleOutcome.BUSY && attempts.any()) {
            attempts.forget(key); // failed before, done now
        }
        if (result.outcome() == HandleOutcome.BUSY) {
            hold(key, delivery, DeliveryOutcome.BUSY);
        } else {
            ack(deliveryTag);
            settled(result.outcome()); // counted once sent: an acknowledgement that failed comes back
        }
    }

    /**
     * Work that threw (its claim released): requeued after the failure policy's back-off, or, once
     * the policy gives up on the event, nacked without requeue — to the queue's dead-letter exchange.
     */
    private void failed(String key, long deliveryTag) throws IOException {
        int failed = attempts.failed(key);
        if (!attempts.policy().givesUpAfter(failed)) {
            counts.record(DeliveryOutcome.FAILED);
            requeueLater(deliveryTag, attempts.policy().backoffAfter(failed));
        } else {
            attempts.forget(key);
            counts.record(DeliveryOutcome.DEAD_LETTERED);
            nack(deliveryTag, false);
        }
    }

    /**
     * Holds a delivery whose event another delivery holds, or that the store could not claim:
     * unacknowledged, handled again after {@link Builder#busyRequeueDelay} on a thread of {@link
     * #RETRIES}, in turn with this consumer's other deliveries (under {@link #inHand}) — while the
     * consumer goes on with the messages after it. Never requeued for those: a quorum queue counts
     * each requeue towards its {@code x-delivery-limit} and dead-letters the message past it, so a
     * long-held event or a store outage would lose it. Requeued when the consumer stops. Counted as
     * {@code counted} ({@code BUSY} or {@code STORE_FAILED}).
     */
    void hold(String key, Delivery delivery, DeliveryOutcome counted) {
        counts.record(counted);
        REQUEUES.schedule(
                () -> RETRIES.execute(
                        () -> underLock("a held delivery", System.Logger.Level.DEBUG, () -> retry(key, delivery))),
                busyDelay.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void retry(String key, Delivery delivery) throws IOException {
        if (stopping || !getChannel().isOpen()) {
            nack(delivery.getEnvelope().getDeliveryTag(), true); // to the next consumer
            return;
        }
        handle(key, delivery);
    }

    /** Counts a processed or duplicate delivery once its acknowledgement was sent. */
    void settled(HandleOutcome outcome) {
        switch (outcome) {
            case PROCESSED -> counts.record(DeliveryOutcome.PROCESSED);
            case DUPLICATE -> counts.record(DeliveryOutcome.DUPLICATE);
            case BUSY -> throw new IllegalStateException("a BUSY delivery is held, never settled");
        }
    }

    /** A window's work threw an {@code Error}: rolled back, nothing of it acknowledged, every delivery requeued. */
    void failed(List<Delivery> window) throws IOException {
        counts.record(DeliveryOutcome.FAILED);
        for (Delivery delivery : window) {
            nack(delivery.getEnvelope().getDeliveryTag(), true);
        }
    }

    private void ack(long deliveryTag) throws IOException {
        acknowledgements.ack(deliveryTag);
    }

    private void nack(long deliveryTag, boolean requeue) throws IOException {
        acknowledgements.nack(deliveryTag, requeue);
    }

    private void reject(long deliveryTag, boolean requeue) throws IOException {
        acknowledgements.reject(deliveryTag, requeue);
    }

    /**
     * Stops gracefully: no new delivery is started (the channel's subscription is cancelled, and
     * deliveries already sent to this consumer, and keyless ones it held, are handed back unapplied), and the one in hand is
     * finished and acknowledged before this returns. Close the channel afterwards. Call it from a
     * thread of your own, not from a delivery's.
     *
     * @return false if the delivery in hand was still running after {@code timeout}
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws IOException if the subscription could not be cancelled
     */
    public boolean stop(Duration timeout) throws IOException, InterruptedException {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be null or negative");
        }
        stopping = true;
        String consumerTag = getConsumerTag();
        if (consumerTag != null && getChannel().isOpen()) {
            getChannel().basicCancel(consumerTag);
        }
        if (!inHand.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        try {
            if (windows != null) {
                windows.handBack(); // a window still gathering has not begun: to the next consumer, untouched
            }
            keys.handBack(getChannel().isOpen());
        } finally {
            inHand.unlock();
        }
        return true;
    }

    /**
     * What this consumer has done since it was built. Each delivery is also reported to the inbox's
     * {@link dev.inbox.InboxMetrics#delivered} (the {@code inbox.deliveries} meter of {@code
     * inbox-micrometer}).
     */
    public Deliveries counts() {
        return counts.snapshot();
    }

    /** Requeues after {@code delay}, so that a failing message does not spin through the queue. */
    private void requeueLater(long deliveryTag, Duration delay) {
        REQUEUES.schedule(
                () -> {
                    try {
                        nack(deliveryTag, true);
                    } catch (IOException | RuntimeException channelGone) {
                        // the broker redelivers what this channel left unacknowledged
                    }
                },
                delay.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Configures an {@link InboxConsumer}; each setter checks its argument at once. */
    public static final class Builder {
        private final Channel channel;
        private final String consumer;
        private final InboxMetrics metrics;
        private final Handling handling;
        private InboxObserver observer = InboxObserver.NONE;
        private MessageKeys keys = MessageKeys.standard();
        private KeylessMessages keyless = KeylessMessages.HOLD;
        private Duration busyDelay = Duration.ofSeconds(1);
        private @Nullable Boolean requeueFailedWork;
        private @Nullable FailurePolicy failurePolicy;
        private Windows.@Nullable Handling windowing;
        private int window = 1;
        private Duration linger = Duration.ofMillis(10);

        private Builder(Channel channel, String consumer, InboxMetrics metrics, Handling handling) {
            if (channel == null) {
                throw new IllegalArgumentException("channel, inbox and handler must not be null");
            }
            this.channel = channel;
            this.consumer = consumer;
            this.metrics = metrics;
            this.handling = handling;
        }

        /**
         * Where the dedup key comes from; default {@link MessageKeys#standard()} (message-id, else
         * the Debezium outbox {@code id} header; never the content).
         *
         * @throws IllegalArgumentException if null
         */
        public Builder keys(MessageKeys keys) {
            if (keys == null) {
                throw new IllegalArgumentException("keys must not be null");
            }
            this.keys = keys;
            return this;
        }

        /**
         * What a message without a usable dedup key comes to; default {@link KeylessMessages#HOLD}
         * (held unacknowledged, never dropped). {@link KeylessMessages#DEAD_LETTER} rejects it to the
         * queue's dead-letter exchange: choose it only for a queue that has one, since the broker
         * drops a rejected message otherwise, and AMQP cannot tell the consumer which it is.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder keylessMessages(KeylessMessages keyless) {
            if (keyless == null) {
                throw new IllegalArgumentException("keylessMessages must not be null");
            }
            this.keyless = keyless;
            return this;
        }

        /**
         * How long a message whose work threw waits before it is requeued, and how long a busy message
         * or one the store could not claim is held before it is handled again (in windows: requeued);
         * default 1 second. A plain immediate requeue would spin.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder busyRequeueDelay(Duration delay) {
            if (delay == null || delay.isNegative()) {
                throw new IllegalArgumentException("busyRequeueDelay must not be negative or null");
            }
            this.busyDelay = delay;
            return this;
        }

        /**
         * True (the default) requeues a message whose work threw, after {@link #busyRequeueDelay},
         * for as long as it fails; false nacks it without requeue at its first failure, to the
         * queue's dead-letter exchange ({@code failurePolicy(FailurePolicy.attempts(1, delay))}).
         * {@link #failurePolicy} chooses between the two.
         */
        public Builder requeueFailedWork(boolean requeue) {
            this.requeueFailedWork = requeue;
            return this;
        }

        /**
         * How a message whose work threw is retried: requeued after the policy's back-off, and,
         * once the policy gives up on its event (counted by dedup key, in memory, in this
         * consumer), nacked without requeue — to the queue's dead-letter exchange; on a queue
         * without one the broker drops it, so give the queue one. Default: retried for ever, {@link
         * #busyRequeueDelay} apart. A quorum queue also counts each requeue towards its {@code
         * x-delivery-limit}, the broker's own give-up, which comes first if lower.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder failurePolicy(FailurePolicy policy) {
            if (policy == null) {
                throw new IllegalArgumentException("failurePolicy must not be null");
            }
            this.failurePolicy = policy;
            return this;
        }

        private FailurePolicy failurePolicy() {
            if (failurePolicy != null && requeueFailedWork != null) {
                throw new IllegalStateException("set either requeueFailedWork or failurePolicy, not both:"
                        + " requeueFailedWork(false) is failurePolicy(FailurePolicy.attempts(1, delay))");
            }
            if (failurePolicy != null) {
                return failurePolicy;
            }
            return requeueFailedWork == null || requeueFailedWork
                    ? FailurePolicy.retryForever(busyDelay.isZero() ? Duration.ofMillis(1) : busyDelay)
                    : FailurePolicy.attempts(1, busyDelay.isZero() ? Duration.ofMillis(1) : busyDelay);
        }

        /**
         * Transactional mode only: applies up to {@code messages} deliveries in <em>one</em> database
         * transaction ({@link TransactionalInbox#handleAll}: the window's claims in one statement per
         * chunk, the handler for each new event on the same connection, one commit), then acknowledges
         * each delivery that is done. A window is applied when it holds {@code messages} deliveries,
         * or {@code linger} after its first one arrived, whichever comes first. Default 1: a
         * transaction per message.
         *
         * <p>What each delivery comes to is what it comes to alone (the table above): a duplicate is
         * acknowledged; a busy one is held unacknowledged and handled again alone after the delay
         * (never requeued: a quorum queue counts requeues towards its {@code x-delivery-limit}) while
         * the window goes on past it; when a handler throws an {@code Exception} the window's
         * transaction rolls back and its deliveries are applied one by one, so the failing one fails
         * alone; a store that fails holds every delivery of the window and handles each again alone
         * after the delay (its commit may have happened: they are then duplicates); an {@code Error}
         * rolls the window back, requeues every delivery of it and closes the channel. A consumer that dies mid-window leaves neither the window's writes nor
         * its records: the broker redelivers all of it.
         *
         * <p>Set the channel's prefetch ({@code basicQos}) to at least twice {@code messages}, so the
         * broker sends the next window while this one commits; with a prefetch below {@code
         * messages} a window never fills and every window waits out its linger.
         *
         * <p>A window whose deliveries are all done is acknowledged with one {@code basicAck(last,
         * multiple=true)} when that settles exactly them: not while a delivery of this consumer below
         * it is held, and never on a channel another consumer shares (seen from the
         * delivery tags, numbered per channel); otherwise each delivery is acknowledged on its own.
         *
         * @throws IllegalArgumentException if {@code messages} is not positive, or {@code linger} is
         *     null or negative
         * @throws IllegalStateException on a lease-mode builder ({@link #builder}), whose claims are
         *     completed one by one
         */
        public Builder window(int messages, Duration linger) {
            if (messages < 1) {
                throw new IllegalArgumentException("window must be at least 1 message, not " + messages);
            }
            if (linger == null || linger.isNegative()) {
                throw new IllegalArgumentException("linger must not be null or negative");
            }
            if (windowing == null) {
                throw new IllegalStateException("a window of messages in one transaction needs transactional mode"
                        + " (InboxConsumer.transactional): in lease mode each claim is completed on its own");
            }
            this.window = messages;
            this.linger = linger;
            return this;
        }

        /** Builds the consumer; pass it to {@code basicConsume} with auto-ack off. */
        public InboxConsumer build() {
            return new InboxConsumer(this);
        }
    }
}
