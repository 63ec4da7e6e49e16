package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.kafka.RecordKeys;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
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

    /** Lease mode: {@code spring.kafka.listener.ack-mode=record} would commit before the claim is completed. */
    @Test
    void anAckModeThatCommitsBeforeTheClaimIsCompleted_isRefusedAtStartup_inLeaseMode() {
        runner.withUserConfiguration(PlainListener.class)
                .withPropertyValues("spring.kafka.listener.ack-mode=record")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("plain-kafka")
                            .hasMessageContaining("AckMode.RECORD")
                            .hasMessageContaining("AckMode.BATCH (the default)");
                });
    }

    /**
     * The producer sends its own {@code event-id} header and the application did not set {@code
     * inbox.kafka.key-header}: the container stops at the first record, naming its headers and the
     * property, and commits nothing past it; started again with the property, every event is applied.
     */
    @Test
    void aKeyTheStarterDoesNotRead_stopsTheContainer_andLosesNothing() throws Exception {
        keyTheStarterDoesNotRead(runner);
    }

    /** The same in transactional mode, where failures go to the after-rollback processor. */
    @Test
    void aKeyTheStarterDoesNotRead_inTransactionalMode_stopsTheContainer_andLosesNothing() throws Exception {
        keyTheStarterDoesNotRead(transactional(runner));
    }

    private ApplicationContextRunner transactional(ApplicationContextRunner configured) {
        return configured
                .withUserConfiguration(PostgresDataSourceConfiguration.class)
                .withConfiguration(AutoConfigurations.of(DataSourceTransactionManagerAutoConfiguration.class))
                .withPropertyValues(
                        "inbox.store=postgres",
                        "inbox.create-schema=true",
                        "inbox.jdbc.table=inbox_boot_edges",
                        "inbox.kafka.transactional=true");
    }

    @SuppressWarnings("unchecked")
    private void keyTheStarterDoesNotRead(ApplicationContextRunner configured) throws Exception {
        configured.withUserConfiguration(PlainListener.class).run(context -> {
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
            assertThat(committed(context, topic))
                    .as("nothing committed past the records without a readable key")
                    .isNull();
            org.springframework.boot.health.contributor.Health health = context.getBean(
                            "inboxKafkaListenersHealthIndicator",
                            org.springframework.boot.health.contributor.HealthIndicator.class)
                    .health(true);
            assertThat(health.getStatus())
                    .as("health while a deduplicated listener stands stopped")
                    .isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
            assertThat(health.getDetails()).containsEntry("stopped", List.of("plain-kafka"));
        });
        configured
                .withUserConfiguration(PlainListener.class)
                .withPropertyValues("inbox.kafka.key-header=event-id")
                .run(context -> {
                    PlainListener listener = context.getBean(PlainListener.class);
                    await("the three events applied", () -> listener.applied.size() == 3);
                    assertThat(listener.applied).containsExactly("e1", "e2", "e3");
                    assertThat(context.getBean(
                                            "inboxKafkaListenersHealthIndicator",
                                            org.springframework.boot.health.contributor.HealthIndicator.class)
                                    .health(true)
                                    .getStatus())
                            .as("health while every listener consumes")
                            .isEqualTo(org.springframework.boot.health.contributor.Status.UP);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class PoisonListener extends Topic {
        final List<String> applied = new CopyOnWriteArrayList<>();
        final List<Long> attempts = new CopyOnWriteArrayList<>();
        final AtomicBoolean poisoned = new AtomicBoolean(true);

        @KafkaListener(id = "poison-kafka", topics = "${test.topic}")
        void onEvent(String event) {
            if (event.equals("p1")) {
                attempts.add(System.nanoTime());
                if (poisoned.get()) {
                    throw new IllegalStateException("poison: p1 fails on every attempt");
                }
            }
            applied.add(event);
        }
    }

    /**
     * Adapter kit rule A10 with the starter's defaults (no error handler of the application's own): a
     * poison record is retried every busy back-off, holds its partition and is never committed past
     * — Spring Kafka's own defaults try ten times, then log and commit past it, an event skipped
     * without being applied or dead-lettered. Once its work succeeds, both records are applied once.
     */
    @Tag("extended") // CI and -Pextended; A10 of BootKafkaStarterKitTest
    @Test
    void aPoisonRecord_isRetriedAtTheBackoff_neverCommittedPast() throws Exception {
        poisonRecord(runner.withPropertyValues("inbox.kafka.key-header=event-id"));
    }

    /** The same in transactional mode, where Spring Kafka's default after-rollback processor skips it. */
    // 9 s, the lease-mode test's second configuration: CI and -Pextended.
    @Test
    @Tag("extended")
    void aPoisonRecord_inTransactionalMode_isRetriedAtTheBackoff_neverCommittedPast() throws Exception {
        poisonRecord(transactional(runner).withPropertyValues("inbox.kafka.key-header=event-id"));
    }

    @SuppressWarnings("unchecked")
    private void poisonRecord(ApplicationContextRunner configured) throws Exception {
        configured.withUserConfiguration(PoisonListener.class).run(context -> {
            assertThat(context).hasNotFailed();
            PoisonListener listener = context.getBean(PoisonListener.class);
            KafkaTemplate<Object, Object> kafka = context.getBean(KafkaTemplate.class);
            String topic = context.getEnvironment().getRequiredProperty("test.topic");
            for (String event : List.of("p1", "n1")) {
                ProducerRecord<Object, Object> record = new ProducerRecord<>(topic, event);
                record.headers().add("event-id", event.getBytes(StandardCharsets.UTF_8));
                kafka.send(record).get(30, TimeUnit.SECONDS);
            }
            await("more attempts than Spring Kafka's default ten", () -> listener.attempts.size() >= 15);
            List<Long> attempts = List.copyOf(listener.attempts);
            long span = attempts.get(attempts.size() - 1) - attempts.get(0);
            assertThat(attempts.size() - 1)
                    .as("retries over %d ms, one busy back-off (100 ms) apart at the most", span / 1_000_000)
                    .isLessThanOrEqualTo((int) (span / Duration.ofMillis(100).toNanos()) + 1);
            assertThat(committed(context, topic))
                    .as("nothing committed past the poison record")
                    .isNull();
            assertThat(listener.applied)
                    .as("the record behind it waits on its partition")
                    .isEmpty();
            listener.poisoned.set(false);
            await("both applied once the poison record's work succeeds", () -> listener.applied.size() == 2);
            Thread.sleep(300); // a second application would show
            assertThat(listener.applied).containsExactly("p1", "n1");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class RecordKeyIsTheEventId {
        @Bean
        RecordKeys recordKeys() {
            return RecordKeys.recordKey();
        }
    }

    /**
     * The application's own {@code RecordKeys} bean is the listeners' key function: here the Kafka
     * record key names the event, and a record sent twice under one key is applied once.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRecordKeysBean_isTheListenersKeyFunction() throws Exception {
        runner.withUserConfiguration(PlainListener.class, RecordKeyIsTheEventId.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkaTemplate<Object, Object> kafka = context.getBean(KafkaTemplate.class);
                    String topic = context.getEnvironment().getRequiredProperty("test.topic");
                    for (String[] record : new String[][] {{"k1", "e1"}, {"k1", "e1 again"}, {"k2", "e2"}}) {
                        kafka.send(new ProducerRecord<>(topic, record[0], record[1]))
                                .get(30, TimeUnit.SECONDS);
                    }
                    await("all three committed", () -> {
                        OffsetAndMetadata committed = committed(context, topic);
                        return committed != null && committed.offset() == 3;
                    });
                    assertThat(context.getBean(PlainListener.class).applied).containsExactly("e1", "e2");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class DeadLetters {
        final List<String> recovered = new CopyOnWriteArrayList<>();

        @Bean
        org.springframework.kafka.listener.CommonErrorHandler deadLetterHandler() {
            return new org.springframework.kafka.listener.DefaultErrorHandler(
                    (record, failure) -> recovered.add(record.value() + " " + failure.getMessage()),
                    new org.springframework.util.backoff.FixedBackOff(100, 2));
        }
    }

    /**
     * With {@code inbox.refuse-expired-copies}, a record older than {@code inbox.retention} (by its
     * timestamp) is EXPIRED: the listener's dead-letter path takes it, unapplied; a fresh one is
     * applied, and both are committed.
     */
    @Test
    @SuppressWarnings("unchecked")
    void refuseExpiredCopies_sendsARecordOlderThanTheRetentionToTheDeadLetterPath_neverApplied() throws Exception {
        runner.withUserConfiguration(PlainListener.class, DeadLetters.class)
                .withPropertyValues(
                        "inbox.kafka.key-header=event-id", "inbox.retention=1h", "inbox.refuse-expired-copies=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkaTemplate<Object, Object> kafka = context.getBean(KafkaTemplate.class);
                    String topic = context.getEnvironment().getRequiredProperty("test.topic");
                    long twoHoursAgo =
                            System.currentTimeMillis() - Duration.ofHours(2).toMillis();
                    ProducerRecord<Object, Object> old = new ProducerRecord<>(topic, 0, twoHoursAgo, null, "old");
                    old.headers().add("event-id", "old".getBytes(StandardCharsets.UTF_8));
                    kafka.send(old).get(30, TimeUnit.SECONDS);
                    ProducerRecord<Object, Object> fresh = new ProducerRecord<>(topic, "fresh");
                    fresh.headers().add("event-id", "fresh".getBytes(StandardCharsets.UTF_8));
                    kafka.send(fresh).get(30, TimeUnit.SECONDS);
                    await("both committed", () -> {
                        OffsetAndMetadata committed = committed(context, topic);
                        return committed != null && committed.offset() == 2;
                    });
                    assertThat(context.getBean(PlainListener.class).applied).containsExactly("fresh");
                    assertThat(context.getBean(DeadLetters.class).recovered)
                            .singleElement()
                            .asString()
                            .startsWith("old ")
                            .contains("EXPIRED");
                });
    }

    @Test
    void aRecordKeysBean_andTheKeyHeaderProperty_failTheStartup_namingBoth() {
        runner.withUserConfiguration(PlainListener.class, RecordKeyIsTheEventId.class)
                .withPropertyValues("inbox.kafka.key-header=event-id")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("inbox.kafka.key-header=event-id")
                            .hasMessageContaining("bean");
                });
    }

    /**
     * What the group of the topic's listener container committed on the topic's partition: the
     * container's own group (a listener's id is its group unless told otherwise), not the
     * consumer factory's.
     */
    @SuppressWarnings("unchecked")
    private static OffsetAndMetadata committed(org.springframework.context.ApplicationContext context, String topic) {
        String group = context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainers().stream()
                .filter(c -> java.util.Arrays.asList(c.getContainerProperties().getTopics())
                        .contains(topic))
                .findFirst()
                .orElseThrow()
                .getGroupId();
        ConsumerFactory<Object, Object> consumers = context.getBean(ConsumerFactory.class);
        try (Consumer<Object, Object> reader = consumers.createConsumer(group, "-committed-reader")) {
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
