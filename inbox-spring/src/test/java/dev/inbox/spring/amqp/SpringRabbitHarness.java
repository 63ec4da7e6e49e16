package dev.inbox.spring.amqp;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.rabbitmq.KeylessMessages;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.RabbitQueues;
import dev.inbox.testing.TestServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * {@link InboxRabbitAdvice} under the adapter kit: Spring AMQP's own container (acknowledge mode
 * AUTO) on a queue of its own of the real RabbitMQ, with a dead-letter queue the harness reads; one
 * connection factory per consumer, and a new container when Spring AMQP stopped one on its own. In
 * transactional mode the container runs each message in a {@code DataSourceTransactionManager}
 * transaction that the claim joins.
 */
final class SpringRabbitHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final @Nullable Database db;
    private final @Nullable CaffeineInboxStore caffeine;
    private final SpringInbox inbox;
    private final Database.@Nullable KitTransactions transactions;
    private final CachingConnectionFactory adminConnections;
    private final RabbitAdmin admin;
    private final RabbitTemplate template;
    private final SimpleMessageListenerContainer deadLetters;
    private final String queue = "inbox-spring-kit-" + UUID.randomUUID();
    private final FaultProxy proxy;

    /** Lease mode on the in-memory store, or ({@code db} given) transactional mode on its PostgreSQL. */
    SpringRabbitHarness(AdapterKit kit, @Nullable Database db) {
        this.kit = kit;
        this.db = db;
        this.caffeine = db == null ? CaffeineInboxStore.builder().build() : null;
        this.transactions = db == null ? null : db.forKit(kit);
        this.inbox = Database.kitInbox(kit, db, transactions, caffeine);
        adminConnections = new CachingConnectionFactory(URI.create(TestServers.rabbitmq()));
        try {
            proxy = FaultProxy.start(adminConnections.getHost(), adminConnections.getPort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        admin = new RabbitAdmin(adminConnections);
        admin.declareQueue(new Queue(queue + "-dead", false, false, false));
        // Lease mode on a quorum queue with a delivery limit (a BUSY message requeued too often is
        // dead-lettered there), transactional mode on a classic one: the kit runs on both kinds.
        boolean quorum = db == null;
        admin.declareQueue(
                new Queue(queue, quorum, false, false, RabbitQueues.deadLetteringTo(queue + "-dead", quorum)));
        template = new RabbitTemplate(adminConnections);
        deadLetters = new SimpleMessageListenerContainer(adminConnections);
        deadLetters.setQueueNames(queue + "-dead");
        deadLetters.setMessageListener(message -> kit.deadLettered(body(message)));
        deadLetters.start();
    }

    private static String body(Message message) {
        return new String(message.getBody(), StandardCharsets.UTF_8);
    }

    @Override
    public Mode mode() {
        return db == null ? Mode.LEASE : Mode.TRANSACTIONAL;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        MessageProperties properties = new MessageProperties();
        if (id != null) {
            properties.setHeader(AdapterKit.ID_HEADER, id);
        }
        template.send("", queue, new Message(payload.getBytes(StandardCharsets.UTF_8), properties));
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() {
        deadLetters.stop();
        admin.deleteQueue(queue);
        admin.deleteQueue(queue + "-dead");
        adminConnections.destroy();
        proxy.close();
        if (caffeine != null) {
            caffeine.close();
        }
    }

    /** One consumer: a container on a connection factory of its own, and a watcher that replaces a stopped one. */
    private final class Member implements Running {
        final CachingConnectionFactory connections = new CachingConnectionFactory(
                URI.create(Endpoints.via(TestServers.rabbitmq(), proxy.host(), proxy.port())));
        final Thread watcher = new Thread(this::watch, "adapter-kit-spring-rabbit-watcher");
        volatile SimpleMessageListenerContainer container;
        volatile boolean ended;
        volatile com.rabbitmq.client.@Nullable Channel channel;

        Member() {
            container = newContainer();
            container.start();
            watcher.setDaemon(true);
            watcher.start();
        }

        private SimpleMessageListenerContainer newContainer() {
            SimpleMessageListenerContainer created = new SimpleMessageListenerContainer(connections);
            created.setQueueNames(queue);
            created.setPrefetchCount(10);
            created.setRecoveryInterval(kit.backoff().toMillis());
            created.setMessageListener((ChannelAwareMessageListener) (message, delivering) -> {
                channel = delivering;
                try {
                    kit.apply(
                            body(message),
                            transactions == null ? null : DataSourceUtils.getConnection(transactions.connections()));
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            if (transactions != null) {
                created.setTransactionManager(transactions.manager());
            }
            // Spring AMQP's answer to an Error is System.exit(99): the process dies with its messages
            // unacknowledged. In a test JVM that dies with it, so this stands for the restart instead.
            created.setJavaLangErrorHandler(error -> new Thread(created::stop).start());
            created.setAdviceChain(new InboxRabbitAdvice(
                            inbox,
                            delivery -> {
                                Map<String, Object> headers =
                                        delivery.getProperties().getHeaders();
                                Object id = headers == null ? null : headers.get(AdapterKit.ID_HEADER);
                                return kit.keyOf(
                                        id == null ? null : id.toString(),
                                        new String(delivery.getBody(), StandardCharsets.UTF_8));
                            },
                            kit.backoff())
                    .keylessMessages(KeylessMessages.DEAD_LETTER)); // the kit's queues have a dead-letter exchange
            return created;
        }

        private void watch() {
            while (!ended) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                if (!ended && !container.isRunning()) {
                    container = newContainer();
                    container.start();
                }
            }
        }

        @Override
        public void stop() throws InterruptedException {
            ended = true;
            watcher.join(5_000);
            container.stop();
            connections.destroy();
        }

        /**
         * Cuts the connection under the container from a thread of its own, as a dead process would,
         * and returns once the delivering channel is closed too: an acknowledgement after this fails.
         */
        @Override
        public void crash() {
            ended = true;
            com.rabbitmq.client.Connection rabbit =
                    connections.createConnection().getDelegate();
            com.rabbitmq.client.Channel delivering = channel;
            new Thread(rabbit::abort).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((rabbit.isOpen() || (delivering != null && delivering.isOpen())) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            new Thread(() -> {
                        container.stop();
                        connections.destroy();
                    })
                    .start();
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
