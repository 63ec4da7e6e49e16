package dev.inbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.RabbitQueues;
import dev.inbox.testing.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link InboxConsumer} under the adapter kit: a queue of its own on the real RabbitMQ with a
 * dead-letter queue the harness reads, one connection (automatic recovery on) per consumer, and a
 * channel opened again when amqp-client closed it because the consumer threw (as a supervised
 * consumer would be). The queue is a classic one, or a quorum queue with {@code x-delivery-limit}
 * {@value RabbitQueues#QUORUM_DELIVERY_LIMIT} (RabbitMQ 4's default for every quorum queue; 3.x needs it set): the
 * broker then dead-letters a message redelivered more often, so a BUSY message or a store outage
 * that the consumer answered with requeues would fail the kit's rules A5, A8 and A12.
 */
final class RabbitHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable HikariDataSource pool;
    private final int window;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final ConnectionFactory factory = new ConnectionFactory();
    private final ConnectionFactory proxied = new ConnectionFactory();
    private final FaultProxy proxy;
    private final Connection admin;
    private final Channel publisher;
    private final String queue = "inbox-adapter-kit-" + UUID.randomUUID();

    /** Which kind of queue the harness declares. */
    enum Queue {
        CLASSIC,
        QUORUM
    }

    /**
     * In lease mode on the in-memory store, or ({@code pool} given) in transactional mode on
     * PostgreSQL, a delivery to a transaction.
     */
    RabbitHarness(AdapterKit kit, @Nullable HikariDataSource pool, Queue type) throws Exception {
        this(kit, pool, 1, type);
    }

    /**
     * As {@link #RabbitHarness(AdapterKit, HikariDataSource, Queue)}, in transactional mode {@code
     * window} deliveries to a transaction ({@link InboxConsumer.Builder#window}, linger 50 ms; the
     * prefetch is 10).
     */
    RabbitHarness(AdapterKit kit, @Nullable HikariDataSource pool, int window, Queue type) throws Exception {
        this.kit = kit;
        this.pool = pool;
        this.window = window;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres =
                    PostgresInboxStore.builder(pool).table("inbox_adapter_kit").build();
            postgres.createSchemaIfMissing();
        }
        factory.setUri(TestServers.rabbitmq());
        factory.setNetworkRecoveryInterval(200);
        proxy = FaultProxy.start(factory.getHost(), factory.getPort());
        proxied.setUri(Endpoints.via(TestServers.rabbitmq(), proxy.host(), proxy.port()));
        proxied.setNetworkRecoveryInterval(200);
        admin = factory.newConnection("adapter-kit-admin");
        publisher = admin.createChannel();
        publisher.queueDeclare(queue + "-dead", false, false, false, null);
        boolean quorum = type == Queue.QUORUM;
        publisher.queueDeclare( // a quorum queue is durable
                queue, quorum, false, false, RabbitQueues.deadLetteringTo(queue + "-dead", quorum));
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
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) throws Exception {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .headers(id == null ? Map.of() : Map.of(AdapterKit.ID_HEADER, id))
                .build();
        publisher.basicPublish("", queue, properties, payload.getBytes(StandardCharsets.UTF_8));
        publisher.waitForConfirmsOrDie(10_000);
    }

    private InboxConsumer consumer(Channel channel) {
        InboxConsumer.Builder builder = pool == null
                ? InboxConsumer.builder(
                        channel,
                        Inbox.builder(kit.store(caffeine))
                                .consumer(kit.consumer())
                                .lease(kit.lease())
                                .build(),
                        delivery -> kit.apply(body(delivery.getBody()), null))
                : InboxConsumer.transactional(
                        channel,
                        TransactionalInbox.builder(kit.store(postgres), kit.dataSource(pool))
                                .consumer(kit.consumer())
                                .build(),
                        (delivery, connection) -> kit.apply(body(delivery.getBody()), connection));
        builder.keylessMessages(KeylessMessages.DEAD_LETTER); // the kit's queues have a dead-letter exchange
        if (window > 1) {
            builder.window(window, Duration.ofMillis(50));
        }
        return builder.keys(delivery -> {
                    Map<String, Object> headers = delivery.getProperties().getHeaders();
                    Object id = headers == null ? null : headers.get(AdapterKit.ID_HEADER);
                    return kit.keyOf(id == null ? null : id.toString(), body(delivery.getBody()));
                })
                .busyRequeueDelay(kit.backoff())
                .build();
    }

    private static String body(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public Running start() throws Exception {
        return new Member(proxied.newConnection("adapter-kit-consumer"));
    }

    @Override
    public void close() throws Exception {
        try (Channel cleanup = admin.createChannel()) {
            cleanup.queueDelete(queue);
            cleanup.queueDelete(queue + "-dead");
        }
        admin.close(5_000);
        proxy.close();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /** One consumer: its connection, and a watcher that subscribes again on a channel closed under it. */
    private final class Member implements Running {
        final Connection connection;
        final Thread watcher = new Thread(this::watch, "adapter-kit-rabbit-watcher");
        volatile boolean ended;
        volatile Channel channel;
        volatile InboxConsumer consumer;

        Member(Connection connection) throws Exception {
            this.connection = connection;
            subscribe();
            watcher.setDaemon(true);
            watcher.start();
        }

        private void subscribe() throws Exception {
            Channel opened = connection.createChannel();
            opened.basicQos(10);
            InboxConsumer subscribed = consumer(opened);
            channel = opened;
            consumer = subscribed;
            opened.basicConsume(queue, false, subscribed);
        }

        private void watch() {
            while (!ended) {
                try {
                    Thread.sleep(50);
                    if (!ended && connection.isOpen() && !channel.isOpen()) {
                        subscribe();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // tried again on the next round
                }
            }
        }

        @Override
        public void stop() throws Exception {
            ended = true;
            consumer.stop(Duration.ofSeconds(60));
            connection.close(5_000);
        }

        /**
         * Aborts the connection from a thread of its own (the caller may be the delivery's) and
         * returns once the consumer's channel is closed too: an acknowledgement after this fails.
         */
        @Override
        public void crash() {
            ended = true;
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
    }
}
