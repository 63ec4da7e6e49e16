package dev.inbox.spring.sqs;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spring.SpringInbox;
import dev.inbox.tck.FaultProxy;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.config.SqsBootstrapConfiguration;
import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
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
 * {@link InboxSqsListeners} under the adapter kit: a queue of its own on the real SQS server, its
 * redrive policy moving a message to a dead-letter queue (which the harness reads) after five
 * receives, and per consumer a Spring Cloud AWS application context of its own with one
 * {@code @SqsListener}. A crash makes every call of the context's SQS client fail at once (nothing
 * more is deleted), then closes the context and the client in the background.
 */
final class SpringSqsHarness implements AdapterHarness {

    private final AdapterKit kit;
    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SqsClient admin = SqsQueues.client();
    private final String queueName = "inbox-kit-spring-" + UUID.randomUUID();
    private final String queue;
    private final String dead;
    private final AutoCloseable deadReader;
    private final FaultProxy proxy;

    SpringSqsHarness(AdapterKit kit) throws IOException {
        this.kit = kit;
        dead = SqsQueues.create(admin, "inbox-kit-spring-dead", Map.of());
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
        java.util.concurrent.atomic.AtomicBoolean crashed = new java.util.concurrent.atomic.AtomicBoolean();
        SqsAsyncClient client = SqsAsyncClient.builder()
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
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource("kit", Map.of("inbox.kit.queue", queueName)));
        context.register(Bootstrap.class);
        context.registerBean(
                "defaultSqsListenerContainerFactory",
                SqsMessageListenerContainerFactory.class,
                () -> SqsMessageListenerContainerFactory.builder()
                        .sqsAsyncClient(client)
                        .configure(options -> options.pollTimeout(Duration.ofSeconds(1))
                                .maxConcurrentMessages(10)
                                .maxMessagesPerPoll(10)
                                .acknowledgementInterval(Duration.ZERO) // immediate: a stop waits for each delete (A9)
                                .acknowledgementThreshold(0)
                                .listenerShutdownTimeout(Duration.ofSeconds(30)))
                        .build());
        context.registerBean(
                InboxSqsListeners.class,
                () -> InboxSqsListeners.sharingOneConsumer(
                        SpringInbox.leaseOnly(Inbox.builder(kit.store(store))
                                .consumer(kit.consumer())
                                .lease(kit.lease())
                                .build()),
                        message -> kit.keyOf(message.attribute(AdapterKit.ID_HEADER), message.body()),
                        kit.backoff(),
                        context.getBean(MessageListenerContainerRegistry.class)));
        context.registerBean(KitListener.class, () -> new KitListener(kit));
        context.refresh();
        return new Running() {
            @Override
            public void stop() {
                context.close();
                client.close();
            }

            /** Fails every SQS call from now on, at once; the context and client close in the background. */
            @Override
            public void crash() {
                crashed.set(true); // nothing more is deleted or made visible
                Thread closing = new Thread(
                        () -> {
                            context.close();
                            client.close();
                        },
                        "adapter-kit-spring-sqs-crash");
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
        };
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

    /** Spring Cloud AWS's listener infrastructure (an import registrar: it takes effect through {@code @Import}). */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.context.annotation.Import(SqsBootstrapConfiguration.class)
    static class Bootstrap {}

    /** The kit's work, as an application's listener. */
    static final class KitListener {
        private final AdapterKit kit;

        KitListener(AdapterKit kit) {
            this.kit = kit;
        }

        @SqsListener(value = "${inbox.kit.queue}", id = "kit")
        void on(String body) throws Exception {
            kit.apply(body, null);
        }
    }
}
