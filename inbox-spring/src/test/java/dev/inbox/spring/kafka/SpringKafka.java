package dev.inbox.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;

/**
 * One topic of one partition on the real broker the tests share ({@link KafkaBroker#bootstrap()}),
 * with Spring Kafka's own template and container on it.
 */
final class SpringKafka implements AutoCloseable {

    final String topic = "inbox-spring-" + UUID.randomUUID();
    final String group = "group-" + topic;
    final DefaultKafkaConsumerFactory<String, String> consumers;
    private final DefaultKafkaProducerFactory<String, String> producers;
    private final KafkaTemplate<String, String> template;

    SpringKafka() {
        Map<String, Object> admin = Map.of("bootstrap.servers", KafkaBroker.bootstrap());
        KafkaAdmin kafkaAdmin = new KafkaAdmin(admin);
        kafkaAdmin.createOrModifyTopics(new NewTopic(topic, 1, (short) 1));
        producers = producers();
        template = new KafkaTemplate<>(producers);
        consumers = consumers(group);
    }

    /** Producers of String records to the shared broker, each send sent at once. */
    static DefaultKafkaProducerFactory<String, String> producers() {
        return new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                KafkaBroker.bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class,
                ProducerConfig.LINGER_MS_CONFIG,
                0));
    }

    /** Consumers of String records in {@code group} on the shared broker, from the earliest offset. */
    static DefaultKafkaConsumerFactory<String, String> consumers(String group) {
        return new DefaultKafkaConsumerFactory<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                KafkaBroker.bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                "consumer",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class));
    }

    /** Sends a record whose value and CloudEvent id ({@code ce_id}, {@code ce_source}) are {@code event}. */
    void send(String... events) throws Exception {
        for (String event : events) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, event);
            record.headers().add("ce_id", event.getBytes(StandardCharsets.UTF_8));
            record.headers().add("ce_source", "/tests".getBytes(StandardCharsets.UTF_8));
            template.send(record).get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends a record with value {@code value} and no CloudEvent id: it has no dedup key. */
    void sendKeyless(String value) throws Exception {
        template.send(new ProducerRecord<>(topic, value)).get(30, TimeUnit.SECONDS);
    }

    /** A container on the topic, not started, with {@code listener}. */
    KafkaMessageListenerContainer<String, String> container(MessageListener<String, String> listener) {
        return containerOf(listener);
    }

    /** A container on the topic, not started, with the batch listener {@code listener}. */
    KafkaMessageListenerContainer<String, String> batchContainer(BatchMessageListener<String, String> listener) {
        return containerOf(listener);
    }

    private KafkaMessageListenerContainer<String, String> containerOf(Object listener) {
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setPollTimeout(100);
        KafkaMessageListenerContainer<String, String> container =
                new KafkaMessageListenerContainer<>(consumers, properties);
        container.setupMessageListener(listener);
        return container;
    }

    /** The group's committed offset, or -1 for none. */
    long committed() {
        try (Consumer<String, String> reader = consumers.createConsumer()) {
            TopicPartition partition = new TopicPartition(topic, 0);
            OffsetAndMetadata offset =
                    reader.committed(Set.of(partition), Duration.ofSeconds(30)).get(partition);
            return offset == null ? -1 : offset.offset();
        }
    }

    /** Waits up to {@code seconds} for {@code condition}, failing with {@code what}. */
    static void await(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline)
                    .as("waited %d s for: %s", seconds, what)
                    .isTrue();
            Thread.sleep(25);
        }
    }

    @Override
    public void close() {
        producers.destroy();
    }
}
