package dev.inbox.tck;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.inbox.Claim;
import dev.inbox.CompletionFailedException;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The adapter kit's reference adapter: the simplest correct manual-ack consumer on the real
 * RabbitMQ, following the outcome table, and the ways to break it one at a time ({@link Breakage})
 * for the kit's self-tests. Lease mode on the {@link ReferenceStore}, or transactional mode on the
 * {@link H2TransactionalStore} (the kit's ledger then in the same H2 database).
 */
final class ReferenceRabbitHarness implements AdapterHarness {

    /** One thing the reference adapter gets wrong, or nothing. */
    enum Breakage {
        NONE,
        /** Runs the work without the inbox. */
        NO_DEDUP,
        /** Acknowledges a message whose work threw an Exception. */
        ACK_FAILED_WORK,
        /** Acknowledges a message whose work threw an Error. */
        ACK_ERROR,
        /** Applies a message without a usable key under a random key. */
        APPLY_KEYLESS,
        /** Acknowledges a message the store could not claim. */
        ACK_STORE_FAILURE,
        /** Requeues a message whose completion failed after the work ran. */
        REQUEUE_FAILED_COMPLETION,
        /** Acknowledges before completing the claim. */
        ACK_BEFORE_COMPLETE,
        /**
         * Acknowledges, then completes the claim even when the acknowledgement failed: a crash
         * after the work leaves a duplicate to redeliver, but the acknowledgement goes before the
         * outcome is recorded, so a process that dies between the two leaves an event applied and
         * never recorded.
         */
        ACK_THEN_COMPLETE,
        /** Acknowledges a BUSY message. */
        ACK_BUSY,
        /** Stops by cutting the connection, the message in hand unacknowledged. */
        STOP_ABRUPTLY,
        /** Requeues a message whose work threw at once, without the back-off. */
        RETRY_AT_ONCE,
        /** Does not renew the lease of work that runs longer than it. */
        NO_RENEWAL,
        /**
         * Shuts its retry timer down when the connection is lost, and is registered again by the
         * client's recovery: the first retry after the reconnect throws out of the delivery.
         */
        RETRIES_DIE_WITH_THE_CONNECTION,
        /**
         * Retries a message that is BUSY, failed or could not be claimed a few times ({@value
         * #GIVE_UP_AFTER}), then acknowledges past it, as a bounded retry policy without a
         * dead-letter path would.
         */
        GIVES_UP,
        /**
         * Retries a message that is BUSY, failed or could not be claimed for a while ({@value
         * #GIVE_UP_AFTER_SECONDS} s from its first retry), then acknowledges past it, as a retry
         * policy bounded by elapsed time without a dead-letter path would.
         */
        GIVES_UP_AFTER_A_WHILE,
        /** Neither acknowledges nor requeues a message whose completion failed after the work ran. */
        LEAVES_FAILED_COMPLETION_UNACKNOWLEDGED,
        /**
         * Transactional mode: acknowledges a message inside its transaction, once claimed and before
         * the work and the commit (to free its prefetch early); a transaction that then never
         * commits has lost the event.
         */
        ACK_BEFORE_COMMIT
    }

    /** The retries of {@link Breakage#GIVES_UP} before it acknowledges past a message: fewer than the kit's 20. */
    static final int GIVE_UP_AFTER = 15;

    /** How long {@link Breakage#GIVES_UP_AFTER_A_WHILE} retries a message before it acknowledges past it. */
    static final int GIVE_UP_AFTER_SECONDS = 3;

    private final Map<String, java.util.concurrent.atomic.AtomicInteger> retries =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Long> firstRetry = new java.util.concurrent.ConcurrentHashMap<>();

    private final AdapterKit kit;
    private final Breakage breakage;
    private final ReferenceStore store = new ReferenceStore(Duration.ofMinutes(1), new HashMap<>());
    private final Inbox inbox;
    private final @Nullable TransactionalInbox transactional;
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    private final ConnectionFactory factory = new ConnectionFactory();
    private final ConnectionFactory proxied = new ConnectionFactory();
    private final FaultProxy proxy;
    private final Connection admin;
    private final Channel publisher;
    private final String queue = "inbox-adapter-kit-" + UUID.randomUUID();

    /** In lease mode, or ({@code database} given) in transactional mode on that H2 database. */
    ReferenceRabbitHarness(AdapterKit kit, Breakage breakage, @Nullable DataSource database) throws Exception {
        this.kit = kit;
        this.breakage = breakage;
        this.inbox = Inbox.builder(kit.store(store))
                .consumer(kit.consumer())
                .lease(kit.lease())
                .build();
        this.transactional = database == null
                ? null
                : TransactionalInbox.builder(
                                kit.store(new H2TransactionalStore(database, Duration.ZERO)), kit.dataSource(database))
                        .consumer(kit.consumer())
                        .build();
        factory.setUri(TestServers.rabbitmq());
        proxy = FaultProxy.start(factory.getHost(), factory.getPort());
        proxied.setUri(Endpoints.via(TestServers.rabbitmq(), proxy.host(), proxy.port()));
        proxied.setNetworkRecoveryInterval(200);
        admin = factory.newConnection("adapter-kit-admin");
        publisher = admin.createChannel();
        publisher.queueDeclare(queue + "-dead", false, false, false, null);
        publisher.queueDeclare(
                queue,
                false,
                false,
                false,
                Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", queue + "-dead"));
        publisher.confirmSelect();
        Channel dead = admin.createChannel();
        dead.basicConsume(queue + "-dead", true, new DefaultConsumer(dead) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                kit.deadLettered(new String(body, StandardCharsets.UTF_8));
            }
        });
    }

    @Override
    public Mode mode() {
        return transactional == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .headers(id == null ? Map.of() : Map.of(AdapterKit.ID_HEADER, id))
                .build();
        publisher.basicPublish("", queue, properties, payload.getBytes(StandardCharsets.UTF_8));
        publisher.waitForConfirmsOrDie(10_000);
    }

    @Override
    public Running start() throws Exception {
        Connection connection = proxied.newConnection("adapter-kit-consumer");
        if (breakage == Breakage.RETRIES_DIE_WITH_THE_CONNECTION) {
            // On the connection's own thread, as it goes down: before anything is delivered again.
            connection.addShutdownListener(lost -> later.shutdownNow());
        }
        Channel channel = connection.createChannel();
        channel.basicQos(10);
        ReferenceConsumer consumer = new ReferenceConsumer(channel);
        String tag = channel.basicConsume(queue, false, consumer);
        return new Running() {
            @Override
            public void stop() throws Exception {
                if (breakage == Breakage.STOP_ABRUPTLY) {
                    connection.abort();
                    return;
                }
                consumer.stopping = true;
                channel.basicCancel(tag);
                synchronized (consumer) { // handleDelivery holds it while a message is in hand
                    connection.close(5_000);
                }
            }

            @Override
            /**
             * Aborts the connection from a thread of its own (the caller may be the delivery's) and
             * returns once the consumer's channel is closed too: an acknowledgement after this fails.
             */
            public void crash() {
                new Thread(connection::abort).start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while ((connection.isOpen() || channel.isOpen()) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }

            @Override
            public void cutConnection() throws IOException {
                proxy.refuse();
            }

            @Override
            public void restoreConnection() throws IOException {
                proxy.accept();
            }
        };
    }

    @Override
    public void close() throws Exception {
        later.shutdownNow();
        proxy.close();
        try (Channel cleanup = admin.createChannel()) {
            cleanup.queueDelete(queue);
            cleanup.queueDelete(queue + "-dead");
        }
        admin.close(5_000);
    }

    private final class ReferenceConsumer extends DefaultConsumer {
        volatile boolean stopping;

        ReferenceConsumer(Channel channel) {
            super(channel);
        }

        @Override
        public synchronized void handleDelivery(
                String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) throws IOException {
            long delivery = envelope.getDeliveryTag();
            if (stopping) {
                getChannel().basicReject(delivery, true);
                return;
            }
            String payload = new String(body, StandardCharsets.UTF_8);
            Object header = properties.getHeaders() == null
                    ? null
                    : properties.getHeaders().get(AdapterKit.ID_HEADER);
            String id;
            try {
                id = kit.keyOf(header == null ? null : header.toString(), payload);
                if (id != null) {
                    InboxKey.of(kit.consumer(), id);
                }
            } catch (RuntimeException invalid) {
                id = null;
            }
            if (id == null) {
                if (breakage == Breakage.APPLY_KEYLESS) {
                    id = UUID.randomUUID().toString();
                } else {
                    getChannel().basicReject(delivery, false);
                    return;
                }
            }
            if (breakage == Breakage.NO_DEDUP) {
                applyAndAck(payload, delivery);
                return;
            }
            if (breakage == Breakage.ACK_BEFORE_COMPLETE || breakage == Breakage.ACK_THEN_COMPLETE) {
                ackBeforeComplete(id, payload, delivery);
                return;
            }
            if (breakage == Breakage.ACK_BEFORE_COMMIT) {
                ackBeforeCommit(id, payload, delivery);
                return;
            }
            HandleOutcome outcome;
            try {
                outcome = transactional != null
                        ? transactional
                                .handle(id, connection -> kit.apply(payload, connection))
                                .outcome()
                        : breakage == Breakage.NO_RENEWAL
                                ? inbox.handle(id, () -> kit.apply(payload, null))
                                        .outcome()
                                : inbox.handleRenewing(id, lease -> kit.apply(payload, null))
                                        .outcome();
            } catch (CompletionFailedException e) {
                if (breakage == Breakage.REQUEUE_FAILED_COMPLETION) {
                    retryLater(delivery, payload);
                } else if (breakage == Breakage.LEAVES_FAILED_COMPLETION_UNACKNOWLEDGED) {
                    return; // left on the open channel: the broker requeues it only when the channel closes
                } else {
                    getChannel().basicAck(delivery, false);
                }
                return;
            } catch (InboxStoreException e) {
                if (breakage == Breakage.ACK_STORE_FAILURE) {
                    getChannel().basicAck(delivery, false);
                } else {
                    retryLater(delivery, payload);
                }
                return;
            } catch (Exception e) {
                if (breakage == Breakage.ACK_FAILED_WORK) {
                    getChannel().basicAck(delivery, false);
                } else if (breakage == Breakage.RETRY_AT_ONCE) {
                    getChannel().basicNack(delivery, false, true);
                } else {
                    retryLater(delivery, payload);
                }
                return;
            } catch (Error e) {
                if (breakage == Breakage.ACK_ERROR) {
                    getChannel().basicAck(delivery, false);
                } else {
                    retryLater(delivery, payload); // the reference keeps its channel: requeued like failed work
                }
                return;
            }
            if (outcome == HandleOutcome.BUSY && breakage != Breakage.ACK_BUSY) {
                retryLater(delivery, payload);
            } else {
                getChannel().basicAck(delivery, false);
            }
        }

        private void applyAndAck(String payload, long delivery) throws IOException {
            try {
                kit.apply(payload, null);
                getChannel().basicAck(delivery, false);
            } catch (Exception e) {
                retryLater(delivery, payload);
            }
        }

        private void ackBeforeComplete(String id, String payload, long delivery) throws IOException {
            Claim claim = inbox.claims().claim(id);
            if (!claim.isAcquired()) {
                if (claim.status() == dev.inbox.spi.ClaimStatus.BUSY) {
                    retryLater(delivery, payload);
                } else {
                    getChannel().basicAck(delivery, false);
                }
                return;
            }
            try {
                kit.apply(payload, null);
            } catch (Exception e) {
                claim.release();
                retryLater(delivery, payload);
                return;
            }
            if (breakage == Breakage.ACK_THEN_COMPLETE) {
                try {
                    getChannel().basicAck(delivery, false);
                } catch (IOException | RuntimeException gone) {
                    // completed all the same, below
                }
            } else {
                getChannel().basicAck(delivery, false); // throws when the channel is gone: never completed
            }
            claim.complete();
        }

        private void ackBeforeCommit(String id, String payload, long delivery) throws IOException {
            TransactionalInbox inTransactions = java.util.Objects.requireNonNull(transactional, "transactional mode");
            HandleOutcome outcome;
            try {
                outcome = inTransactions
                        .handle(id, connection -> {
                            getChannel().basicAck(delivery, false);
                            kit.apply(payload, connection);
                        })
                        .outcome();
            } catch (Exception failed) {
                return; // acknowledged already
            }
            if (outcome == HandleOutcome.BUSY) {
                retryLater(delivery, payload);
            } else if (outcome == HandleOutcome.DUPLICATE) {
                getChannel().basicAck(delivery, false);
            }
        }

        /** True when a breakage that gives up has retried {@code payload} enough. */
        private boolean givesUpOn(String payload) {
            if (breakage == Breakage.GIVES_UP) {
                return retries.computeIfAbsent(payload, p -> new java.util.concurrent.atomic.AtomicInteger())
                                .incrementAndGet()
                        > GIVE_UP_AFTER;
            }
            if (breakage == Breakage.GIVES_UP_AFTER_A_WHILE) {
                long first = firstRetry.computeIfAbsent(payload, p -> System.nanoTime());
                return System.nanoTime() - first > TimeUnit.SECONDS.toNanos(GIVE_UP_AFTER_SECONDS);
            }
            return false;
        }

        private void retryLater(long delivery, String payload) throws IOException {
            Channel channel = getChannel();
            if (givesUpOn(payload)) {
                channel.basicAck(delivery, false); // gives up: acknowledged past, never applied
                return;
            }
            later.schedule(
                    () -> {
                        try {
                            channel.basicNack(delivery, false, true);
                        } catch (IOException | RuntimeException gone) {
                            // the broker requeues what a closed channel left unacknowledged
                        }
                    },
                    kit.backoff().toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }
}
