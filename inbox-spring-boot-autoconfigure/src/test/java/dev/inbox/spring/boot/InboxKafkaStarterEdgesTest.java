package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/** The starter as a new Boot application meets it on Kafka: the configurations it refuses, and keys it cannot read. */
class InboxKafkaStarterEdgesTest {

    @Configuration(proxyBeanMethods = false)
    static class Topic {
        @Bean
        NewTopic topic(org.springframework.core.env.Environment environment) {
            return new NewTopic(environment.getRequiredProperty("test.topic"), 1, (short) 1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncListener extends Topic {
        @KafkaListener(id = "async-kafka", topics = "${test.topic}")
        CompletableFuture<Void> onEvent(String event) {
            return CompletableFuture.runAsync(() -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainListener extends Topic {
        final List<String> applied = new CopyOnWriteArrayList<>();

        @KafkaListener(id = "plain-kafka", topics = "${test.topic}")
        void onEvent(String event) {
            applied.add(event);
        }
    }

    private final String run = UUID.randomUUID().toString();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class, InboxAutoConfiguration.class))
            .withPropertyValues(
                    "spring.application.name=edges-" + run,
                    "test.topic=inbox-edges-" + run,
                    "spring.kafka.bootstrap-servers=" + KafkaBroker.bootstrap(),
                    "spring.kafka.consumer.group-id=group-" + run,
                    "spring.kafka.consumer.auto-offset-reset=earliest",
                    "spring.kafka.consumer.properties.group.protocol=consumer",
                    "spring.kafka.listener.poll-timeout=100ms",
                    "inbox.store=memory",
                    "inbox.kafka.busy-backoff=100ms");

    @Test
    void anAsyncListener_isRefusedAtStartup_withWhatToChange() {
        runner.withUserConfiguration(AsyncListener.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("async-kafka")
                    .hasMessageContaining("returns an asynchronous result")
                    .hasMessageContaining("return void");
        });
    }

    /**
     * The producer sends its own {@code event-id} header and the application did not set {@code
     * inbox.kafka.key-header}: the container stops at the first record, naming its headers and the
     * property, and commits nothing past it; started again with the property, every event is applied.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aKeyTheStarterDoesNotRead_stopsTheContainer_andLosesNothing() throws Exception {
        runner.withUserConfiguration(PlainListener.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkaTemplate<Object, Object> kafka = context.getBean(KafkaTemplate.class);
            String topic = context.getEnvironment().getRequiredProperty("test.topic");
            for (String event : List.of("e1", "e2", "e3")) {
                ProducerRecord<Object, Object> record = new ProducerRecord<>(topic, event);
                record.headers().add("event-id", event.getBytes(StandardCharsets.UTF_8));
                kafka.send(record).get(30, TimeUnit.SECONDS);
            }
            KafkaListenerEndpointRegistry registry = context.getBean(KafkaListenerEndpointRegistry.class);
            await(
                    "the container stopped",
                    () -> !registry.getListenerContainer("plain-kafka").isRunning());
            assertThat(context.getBean(PlainListener.class).applied).isEmpty();
            assertThat(committed(context.getBean(ConsumerFactory.class), topic))
                    .as("nothing committed past the records without a readable key")
                    .isNull();
        });
        runner.withUserConfiguration(PlainListener.class)
                .withPropertyValues("inbox.kafka.key-header=event-id")
                .run(context -> {
                    PlainListener listener = context.getBean(PlainListener.class);
                    await("the three events applied", () -> listener.applied.size() == 3);
                    assertThat(listener.applied).containsExactly("e1", "e2", "e3");
                });
    }

    private static OffsetAndMetadata committed(ConsumerFactory<Object, Object> consumers, String topic) {
        try (Consumer<Object, Object> reader = consumers.createConsumer()) {
            TopicPartition partition = new TopicPartition(topic, 0);
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    reader.committed(Set.of(partition), Duration.ofSeconds(30));
            return offsets.get(partition);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline)
                    .as("waited 60 s for: %s", what)
                    .isTrue();
            Thread.sleep(25);
        }
    }
}
