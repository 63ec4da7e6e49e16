package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.TestServers;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** The starter as a new Boot application meets it on RabbitMQ: the configurations it refuses. */
class InboxRabbitStarterEdgesTest {

    @Configuration(proxyBeanMethods = false)
    static class ManualAckListener {
        @RabbitListener(id = "manual-rabbit", queues = "inbox-edges-manual", ackMode = "MANUAL")
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

    @Test
    void withTheInboxOff_aManuallyAcknowledgingListenerStarts() {
        runner.withUserConfiguration(ManualAckListener.class)
                .withPropertyValues("inbox.rabbit.enabled=false", "spring.rabbitmq.listener.simple.auto-startup=false")
                .run(context -> assertThat(context).hasNotFailed());
    }
}
