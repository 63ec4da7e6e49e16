package dev.inbox.spring.boot;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.config.SqsBootstrapConfiguration;
import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import io.awspring.cloud.sqs.listener.MessageListenerContainer;
import io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The Boot starter's {@code @SqsListener} wiring under the adapter kit: per consumer a Spring Boot
 * application (see {@link BootKitApplication}) with Spring Cloud AWS's listener infrastructure, one
 * {@code @SqsListener} doing the kit's work, and what an application supplies as beans — the store
 * (over the kit's), its SQS client (through a {@link FaultProxy}, for rule A12) and container
 * factory, and the key function ({@link SqsKeys}). The starter wraps the listener with {@code
 * InboxSqsListeners}, scoped by the queue's name. The queue's redrive policy moves a message to a
 * dead-letter queue (which the harness reads) after five receives. Lease mode only: the starter
 * refuses transactional SQS listeners.
 */
final class BootSqsHarness implements AdapterHarness {

    static final String LISTENER = "kit";

    private final AdapterKit kit;
    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SqsClient admin = SqsQueues.client();
    private final String queueName = "inbox-boot-kit-" + UUID.randomUUID();
    private final String queue;
    private final String dead;
    private final AutoCloseable deadReader;
    private final FaultProxy proxy;

    BootSqsHarness(AdapterKit kit) throws IOException {
        this.kit = kit;
        dead = SqsQueues.create(admin, "inbox-boot-kit-dead", Map.of());
        long visibility = Math.max(1, kit.lease().toSeconds());
        queue = admin.createQueue(r -> r.queueName(queueName)
                        .attributes(Map.of(
                                QueueAttributeName.VISIBILITY_TIMEOUT,
                                Long.toString(visibility),
                                QueueAttributeName.REDRIVE_POLICY,
                                SqsQueues.redrive(admin, dead, 5))))
                .queueUrl();
        deadReader = SqsQueues.drain(admin, dead, kit::deadLettered);
        InetSocketAddress server = Endpoints.address(SqsServer.endpoint());
        proxy = FaultProxy.start(server.getHostString(), server.getPort());
    }

    @Override
    public Mode mode() {
        return Mode.LEASE;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        SqsQueues.send(admin, queue, payload, AdapterKit.ID_HEADER, id);
    }

    @Override
    public Running start() {
        return new Member();
    }

    @Override
    public void close() throws Exception {
        deadReader.close();
        admin.deleteQueue(r -> r.queueUrl(queue));
        admin.deleteQueue(r -> r.queueUrl(dead));
        admin.close();
        proxy.close();
        store.close();
    }

    /** Spring Cloud AWS's listener infrastructure and the starter. */
    @Configuration(proxyBeanMethods = false)
    @Import(SqsBootstrapConfiguration.class)
    @ImportAutoConfiguration(InboxAutoConfiguration.class)
    static class KitApplication {}

    /** The application's listener: the kit's work. */
    static final class KitListener {
        private final AdapterKit kit;

        KitListener(AdapterKit kit) {
            this.kit = kit;
        }

        @SqsListener(value = "${kit.queue}", id = LISTENER)
        void on(String body) throws Exception {
            kit.apply(body, null);
        }
    }

    /** One consumer: an application whose SQS client fails every call at once after a crash. */
    private final class Member extends BootKitApplication {
        final AtomicBoolean crashed = new AtomicBoolean();
        final SqsAsyncClient client = SqsAsyncClient.builder()
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution call, ExecutionAttributes attributes) {
                        if (crashed.get()) {
                            throw new IllegalStateException("adapter kit: this consumer crashed");
                        }
                    }
                }))
                .endpointOverride(URI.create(Endpoints.via(SqsServer.endpoint(), proxy.host(), proxy.port())))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();

        Member() {
            start(
                    KitApplication.class,
                    kit,
                    kit.store(store),
                    null,
                    Map.of(
                            "kit.queue",
                            queueName,
                            "inbox.sqs.busy-backoff",
                            kit.backoff().toMillis() + "ms"),
                    beans -> {
                        beans.registerBean(SqsAsyncClient.class, () -> client);
                        beans.registerBean(
                                "defaultSqsListenerContainerFactory",
                                SqsMessageListenerContainerFactory.class,
                                () -> SqsMessageListenerContainerFactory.builder()
                                        .sqsAsyncClient(client)
                                        .configure(options -> options.pollTimeout(Duration.ofSeconds(1))
                                                .maxConcurrentMessages(10)
                                                .maxMessagesPerPoll(10)
                                                .acknowledgementInterval(
                                                        Duration.ZERO) // immediate: a stop waits for each delete (A9)
                                                .acknowledgementThreshold(0)
                                                .listenerShutdownTimeout(Duration.ofSeconds(30)))
                                        .build());
                        beans.registerBean(
                                SqsKeys.class,
                                () -> message -> kit.keyOf(message.attribute(AdapterKit.ID_HEADER), message.body()));
                        beans.registerBean(KitListener.class, () -> new KitListener(kit));
                    });
        }

        @Override
        MessageListenerContainer<?> container() {
            MessageListenerContainer<?> container =
                    context().getBean(MessageListenerContainerRegistry.class).getContainerById(LISTENER);
            if (container == null) {
                throw new IllegalStateException("no listener container " + LISTENER);
            }
            return container;
        }

        @Override
        public void stop() throws InterruptedException {
            super.stop();
            client.close();
        }

        /** Fails every SQS call from now on, at once; the application and client close in the background. */
        @Override
        public void crash() {
            end();
            crashed.set(true); // nothing more is deleted or made visible
            Thread closing = new Thread(
                    () -> {
                        context().close();
                        client.close();
                    },
                    "adapter-kit-boot-sqs-crash");
            closing.setDaemon(true);
            closing.start();
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
