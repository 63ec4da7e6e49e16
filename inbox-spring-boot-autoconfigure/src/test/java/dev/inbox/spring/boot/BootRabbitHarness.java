package dev.inbox.spring.boot;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.RabbitQueues;
import dev.inbox.testing.TestServers;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The Boot starter under the adapter kit on RabbitMQ, as an application uses it: each consumer is
 * a Spring Boot application of its own with Boot's RabbitMQ auto-configuration and the starter, one
 * {@code @RabbitListener} doing the kit's work on a queue whose dead-letter queue the harness reads,
 * and what an application supplies as beans — the store (over the kit's), the key function ({@link
 * MessageKeys}) and, in transactional mode ({@code inbox.rabbit.transactional=true}), the {@code
 * DataSource} and its transaction manager. The starter puts its advice first in the chain of Boot's
 * container factory. The application connects through a {@link FaultProxy}, for rule A12.
 */
final class BootRabbitHarness implements AdapterHarness {

    static final String LISTENER = "kit";

    private final AdapterKit kit;
    private final @Nullable DataSource pool;
    private final @Nullable CaffeineInboxStore caffeine;
    private final @Nullable PostgresInboxStore postgres;
    private final String queue = "inbox-boot-kit-" + UUID.randomUUID();
    private final CachingConnectionFactory adminConnections;
    private final RabbitAdmin admin;
    private final RabbitTemplate template;
    private final SimpleMessageListenerContainer deadLetters;
    private final FaultProxy proxy;

    /** Lease mode on the in-memory store, or ({@code pool} given) transactional mode on PostgreSQL. */
    BootRabbitHarness(AdapterKit kit, @Nullable DataSource pool) throws IOException {
        this.kit = kit;
        this.pool = pool;
        if (pool == null) {
            caffeine = CaffeineInboxStore.builder().build();
            postgres = null;
        } else {
            caffeine = null;
            postgres = PostgresInboxStore.builder(pool).table("inbox_boot_kit").build();
            postgres.createSchemaIfMissing();
        }
        adminConnections = new CachingConnectionFactory(URI.create(TestServers.rabbitmq()));
        proxy = FaultProxy.start(adminConnections.getHost(), adminConnections.getPort());
        admin = new RabbitAdmin(adminConnections);
        admin.declareQueue(new Queue(queue + "-dead", false, false, false));
        // Lease mode on a quorum queue with a delivery limit (a BUSY message requeued too often is
        // dead-lettered there), transactional mode on a classic one: the kit runs on both kinds.
        boolean quorum = pool == null;
        admin.declareQueue(
                new Queue(queue, quorum, false, false, RabbitQueues.deadLetteringTo(queue + "-dead", quorum)));
        template = new RabbitTemplate(adminConnections);
        deadLetters = new SimpleMessageListenerContainer(adminConnections);
        deadLetters.setQueueNames(queue + "-dead");
        deadLetters.setMessageListener(
                message -> kit.deadLettered(new String(message.getBody(), StandardCharsets.UTF_8)));
        deadLetters.start();
    }

    @Override
    public Mode mode() {
        return pool == null ? Mode.LEASE : Mode.TRANSACTIONAL;
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

    /** Boot's RabbitMQ auto-configuration and the starter. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({RabbitAutoConfiguration.class, InboxAutoConfiguration.class})
    static class KitApplication {}

    /** The application's listener: the kit's work, on the transaction's connection in transactional mode. */
    static final class KitListener {
        private final AdapterKit kit;
        private final @Nullable DataSource connections;
        volatile com.rabbitmq.client.@Nullable Channel channel;

        KitListener(AdapterKit kit, @Nullable DataSource connections) {
            this.kit = kit;
            this.connections = connections;
        }

        @RabbitListener(id = LISTENER, queues = "${kit.queue}")
        void on(Message message, com.rabbitmq.client.Channel delivering) throws Exception {
            channel = delivering;
            kit.apply(
                    new String(message.getBody(), StandardCharsets.UTF_8),
                    connections == null ? null : DataSourceUtils.getConnection(connections));
        }
    }

    /** One consumer: an application (see {@link BootKitApplication}). */
    private final class Member extends BootKitApplication {
        final KitListener listener;

        Member() {
            @Nullable DataSource connections = pool == null ? null : kit.dataSource(pool);
            listener = new KitListener(kit, connections);
            start(
                    KitApplication.class,
                    kit,
                    postgres == null ? kit.store(caffeine) : kit.store(postgres),
                    connections,
                    Map.of(
                            "kit.queue",
                            queue,
                            "spring.rabbitmq.addresses",
                            Endpoints.via(TestServers.rabbitmq(), proxy.host(), proxy.port()),
                            "spring.rabbitmq.listener.simple.prefetch",
                            "10",
                            "inbox.rabbit.busy-backoff",
                            kit.backoff().toMillis() + "ms",
                            "inbox.rabbit.transactional",
                            Boolean.toString(connections != null),
                            "inbox.rabbit.keyless-messages", // the kit's queues have a dead-letter exchange
                            "dead-letter"),
                    beans -> {
                        beans.registerBean(MessageKeys.class, () -> delivery -> {
                            Map<String, Object> headers =
                                    delivery.getProperties().getHeaders();
                            Object id = headers == null ? null : headers.get(AdapterKit.ID_HEADER);
                            return kit.keyOf(
                                    id == null ? null : id.toString(),
                                    new String(delivery.getBody(), StandardCharsets.UTF_8));
                        });
                        beans.registerBean(KitListener.class, () -> listener);
                        beans.registerBeanDefinition("kitContainerCustomizer", customizer());
                    });
        }

        /**
         * Spring AMQP's answer to an Error is {@code System.exit(99)}: the process dies with its
         * messages unacknowledged. In a test JVM that dies with it, so the container is stopped
         * instead (and started again by the watcher), standing for the restart. Reconnects try every
         * back-off.
         */
        private RootBeanDefinition customizer() {
            ContainerCustomizer<SimpleMessageListenerContainer> customizer = container -> {
                container.setJavaLangErrorHandler(error -> new Thread(container::stop).start());
                container.setRecoveryInterval(kit.backoff().toMillis());
            };
            RootBeanDefinition definition = new RootBeanDefinition(ContainerCustomizer.class, () -> customizer);
            definition.setTargetType(ResolvableType.forClassWithGenerics(
                    ContainerCustomizer.class, SimpleMessageListenerContainer.class));
            return definition;
        }

        @Override
        MessageListenerContainer container() {
            MessageListenerContainer container =
                    context().getBean(RabbitListenerEndpointRegistry.class).getListenerContainer(LISTENER);
            if (container == null) {
                throw new IllegalStateException("no listener container " + LISTENER);
            }
            return container;
        }

        /**
         * Cuts the application's broker connection from a thread of its own, as a dead process would,
         * and returns once the delivering channel is closed too: an acknowledgement after this fails.
         * The application closes in the background.
         */
        @Override
        public void crash() {
            end();
            if (!context().isActive()) {
                return; // stopped or crashed already
            }
            com.rabbitmq.client.Connection rabbit = context()
                    .getBean(CachingConnectionFactory.class)
                    .createConnection()
                    .getDelegate();
            com.rabbitmq.client.Channel delivering = listener.channel;
            new Thread(rabbit::abort).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((rabbit.isOpen() || (delivering != null && delivering.isOpen())) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            new Thread(context()::close).start();
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
