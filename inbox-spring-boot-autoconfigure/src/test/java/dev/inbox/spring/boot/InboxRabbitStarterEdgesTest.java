package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.testing.TestServers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter as a new Boot application meets it on RabbitMQ: the configurations it refuses. */
class InboxRabbitStarterEdgesTest {

    @Configuration(proxyBeanMethods = false)
    static class ManualAckListener {
        @RabbitListener(id = "manual-rabbit", queues = "inbox-edges-manual", ackMode = "MANUAL")
        void onEvent(String event) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class NoAckListener {
        @RabbitListener(id = "no-ack-rabbit", queues = "inbox-edges-no-ack", ackMode = "NONE")
        void onEvent(String event) {}
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class, InboxAutoConfiguration.class))
            .withPropertyValues(
                    "spring.application.name=edges-" + UUID.randomUUID(),
                    "spring.rabbitmq.addresses=" + TestServers.rabbitmq(),
                    "inbox.store=memory");

    @Test
    void aManuallyAcknowledgingListener_isRefusedAtStartup_withWhatToChange() {
        runner.withUserConfiguration(ManualAckListener.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("[manual-rabbit]")
                    .hasMessageContaining("AcknowledgeMode.MANUAL")
                    .hasMessageContaining("inbox.rabbit.enabled=false");
        });
    }

    /** With AcknowledgeMode.NONE the broker forgets each message as it sends it: a BUSY or failed one is lost. */
    @Test
    void aListenerWithoutAcknowledgements_isRefusedAtStartup_withWhatToChange() {
        runner.withUserConfiguration(NoAckListener.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("[no-ack-rabbit]")
                    .hasMessageContaining("AcknowledgeMode.NONE")
                    .hasMessageContaining("Use AUTO");
        });
    }

    @Test
    void withTheInboxOff_aManuallyAcknowledgingListenerStarts() {
        runner.withUserConfiguration(ManualAckListener.class)
                .withPropertyValues("inbox.rabbit.enabled=false", "spring.rabbitmq.listener.simple.auto-startup=false")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderIdListener {
        final List<String> applied = new CopyOnWriteArrayList<>();

        @Bean
        MessageKeys messageKeys() {
            return MessageKeys.header("order-id");
        }

        @Bean
        Queue queue(org.springframework.core.env.Environment environment) {
            return new Queue(environment.getRequiredProperty("test.queue"), false, false, true);
        }

        @RabbitListener(id = "order-id-rabbit", queues = "${test.queue}")
        void onEvent(String event) {
            applied.add(event);
        }
    }

    /**
     * The application's own {@code MessageKeys} bean is the listeners' key function: two messages
     * with different message ids and one {@code order-id} header are one event, applied once.
     */
    @Test
    void aMessageKeysBean_isTheListenersKeyFunction() {
        runner.withUserConfiguration(OrderIdListener.class)
                .withPropertyValues("test.queue=inbox-edges-keys-" + UUID.randomUUID())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(RabbitAdmin.class).initialize();
                    RabbitTemplate rabbit = context.getBean(RabbitTemplate.class);
                    String queue = context.getEnvironment().getRequiredProperty("test.queue");
                    for (String[] message :
                            new String[][] {{"m1", "o-1", "first"}, {"m2", "o-1", "again"}, {"m3", "o-2", "second"}}) {
                        MessageProperties properties = new MessageProperties();
                        properties.setMessageId(message[0]);
                        properties.setHeader("order-id", message[1]);
                        rabbit.send("", queue, new Message(message[2].getBytes(StandardCharsets.UTF_8), properties));
                    }
                    OrderIdListener listener = context.getBean(OrderIdListener.class);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while ((listener.applied.size() < 2
                                    || context.getBean(RabbitAdmin.class)
                                                    .getQueueInfo(queue)
                                                    .getMessageCount()
                                            > 0)
                            && System.nanoTime() < deadline) {
                        Thread.sleep(25);
                    }
                    Thread.sleep(300); // a second application would show
                    assertThat(listener.applied).containsExactly("first", "second");
                });
    }

    @Test
    void aMessageKeysBean_andTheKeyHeaderProperty_failTheStartup_namingBoth() {
        runner.withUserConfiguration(OrderIdListener.class)
                .withPropertyValues(
                        "test.queue=inbox-edges-keys-" + UUID.randomUUID(), "inbox.rabbit.key-header=event-id")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("inbox.rabbit.key-header=event-id")
                            .hasMessageContaining("bean");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class KeylessListener {
        final List<String> applied = new CopyOnWriteArrayList<>();

        @Bean
        Queue queue(org.springframework.core.env.Environment environment) {
            // No dead-letter exchange, not auto-deleted: the test looks for the message after the stop.
            return new Queue(environment.getRequiredProperty("test.queue"), false, false, false);
        }

        @RabbitListener(id = "keyless-rabbit", queues = "${test.queue}")
        void onEvent(String event) {
            applied.add(event);
        }
    }

    /**
     * By default a message without a dedup key is held, never run, and back in the queue once the
     * application stops: on a queue without a dead-letter exchange a rejected message would be gone.
     */
    @Test
    void byDefault_aMessageWithoutAKey_isHeldAndBackInTheQueueAfterTheStop_neverDropped() throws Exception {
        String queue = "inbox-edges-keyless-" + UUID.randomUUID();
        List<String> applied = new CopyOnWriteArrayList<>();
        runner.withUserConfiguration(KeylessListener.class)
                .withPropertyValues("test.queue=" + queue)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RabbitAdmin admin = context.getBean(RabbitAdmin.class);
                    admin.initialize();
                    // RabbitTemplate's converter sets no message id unless told to.
                    context.getBean(RabbitTemplate.class).convertAndSend("", queue, "no id");
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (admin.getQueueInfo(queue).getMessageCount() > 0 && System.nanoTime() < deadline) {
                        Thread.sleep(25);
                    }
                    Thread.sleep(300); // long enough for a reject to reach the broker
                    applied.addAll(context.getBean(KeylessListener.class).applied);
                });
        CachingConnectionFactory connections = new CachingConnectionFactory(URI.create(TestServers.rabbitmq()));
        try {
            RabbitAdmin admin = new RabbitAdmin(connections);
            assertThat(admin.getQueueInfo(queue).getMessageCount())
                    .as("the keyless message in the queue after the application stopped")
                    .isEqualTo(1);
            admin.deleteQueue(queue);
        } finally {
            connections.destroy();
        }
        assertThat(applied).isEmpty();
    }

    @Test
    void keylessMessagesDeadLetter_isTheAdvicesChoice() {
        runner.withUserConfiguration(KeylessListener.class)
                .withPropertyValues(
                        "test.queue=inbox-edges-keyless-" + UUID.randomUUID(),
                        "inbox.rabbit.keyless-messages=dead-letter",
                        "spring.rabbitmq.listener.simple.auto-startup=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(String.valueOf(
                                    context.getBean(InboxRabbitListeners.class).advice()))
                            .contains("keyless messages: DEAD_LETTER");
                });
    }
}
