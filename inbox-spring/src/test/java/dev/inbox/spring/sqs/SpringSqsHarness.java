package dev.inbox.spring.sqs;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spring.SpringInbox;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.SqsServer;
import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.config.SqsBootstrapConfiguration;
import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry;
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
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
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
    private final SqsClient admin = InboxSqsListenerTest.client();
    private final String queueName = "inbox-kit-spring-" + UUID.randomUUID();
    private final String queue;
    private final String dead;
    private final Thread deadReader;
    private volatile boolean closed;

    SpringSqsHarness(AdapterKit kit) {
        this.kit = kit;
        dead = admin.createQueue(r -> r.queueName(queueName + "-dead")).queueUrl();
        String deadArn = admin.getQueueAttributes(r -> r.queueUrl(dead).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
        long visibility = Math.max(1, kit.lease().toSeconds());
        queue = admin.createQueue(r -> r.queueName(queueName)
                        .attributes(Map.of(
                                QueueAttributeName.VISIBILITY_TIMEOUT,
                                Long.toString(visibility),
                                QueueAttributeName.REDRIVE_POLICY,
                                "{\"maxReceiveCount\":\"5\",\"deadLetterTargetArn\":\"" + deadArn + "\"}")))
                .queueUrl();
        deadReader = new Thread(this::readDeadLetters, "adapter-kit-spring-sqs-dead-letters");
        deadReader.setDaemon(true);
        deadReader.start();
    }

    private void readDeadLetters() {
        while (!closed) {
            try {
                for (Message m : admin.receiveMessage(
                                r -> r.queueUrl(dead).waitTimeSeconds(1).maxNumberOfMessages(10))
                        .messages()) {
                    kit.deadLettered(m.body());
                    admin.deleteMessage(r -> r.queueUrl(dead).receiptHandle(m.receiptHandle()));
                }
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    @Override
    public Mode mode() {
        return Mode.LEASE;
    }

    @Override
    public void publish(@Nullable String id, String payload) {
        admin.sendMessage(r -> r.queueUrl(queue)
                .messageBody(payload)
                .messageAttributes(
                        id == null
                                ? Map.of()
                                : Map.of(
                                        AdapterKit.ID_HEADER,
                                        MessageAttributeValue.builder()
                                                .dataType("String")
                                                .stringValue(id)
                                                .build())));
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
                .endpointOverride(URI.create(SqsServer.endpoint()))
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
                                .acknowledgementInterval(Duration.ofMillis(50))
                                .acknowledgementThreshold(1)
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
        };
    }

    @Override
    public void close() throws Exception {
        closed = true;
        deadReader.join(5_000);
        admin.deleteQueue(r -> r.queueUrl(queue));
        admin.deleteQueue(r -> r.queueUrl(dead));
        admin.close();
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
