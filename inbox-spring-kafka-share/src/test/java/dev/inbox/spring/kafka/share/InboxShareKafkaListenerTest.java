package dev.inbox.spring.kafka.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.core.ShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ShareConsumerRecordRecoverer;

/**
 * {@link InboxShareContainerFactory} named by a {@code @KafkaListener} on a share group, in a Spring
 * application on the real broker.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InboxShareKafkaListenerTest {

    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    static class Application {
        @Bean
        ShareConsumerFactory<String, String> shareConsumerFactory() {
            return new DefaultShareConsumerFactory<>(KafkaBroker.shareConsumerConfig("unused"));
        }

        @Bean
        Inbox inbox() {
            return Inbox.builder(CaffeineInboxStore.builder().build())
                    .consumer("billing")
                    .build();
        }

        @Bean
        InboxShareContainerFactory<String, String> inboxShares(
                ShareConsumerFactory<String, String> consumers, Inbox inbox) {
            return InboxShareContainerFactory.lease(consumers, inbox)
                    .configureLoops(loop -> loop.keys(RecordKeys.header("event-id")));
        }

        @Bean
        Billing billing() {
            return new Billing();
        }

        @Bean
        Shipping shipping() {
            return new Shipping();
        }
    }

    static class Billing {
        final List<String> charged = new CopyOnWriteArrayList<>();

        @KafkaListener(
                id = "billing",
                topics = "${test.topic}",
                groupId = "${test.group}",
                containerFactory = "inboxShares")
        void on(String order) {
            charged.add(order);
        }
    }

    /** Another share group on the same topic, through the same factory, two members: it gets every event too. */
    static class Shipping {
        final List<String> shipped = new CopyOnWriteArrayList<>();

        @KafkaListener(
                id = "shipping",
                topics = "${test.topic}",
                groupId = "${test.group}-shipping",
                containerFactory = "inboxShares",
                concurrency = "2")
        void on(String order) {
            shipped.add(order);
        }
    }

    @Test
    void aShareListener_runsOncePerEvent_andEveryRecordIsAccepted_eachGroupApartFromTheOthers() throws Exception {
        String topic = ShareKafka.topic(1);
        String group = "inbox-share-listener-" + UUID.randomUUID();
        ShareKafka.shareGroup(group, Duration.ofSeconds(30), 5);
        ShareKafka.shareGroup(group + "-shipping", Duration.ofSeconds(30), 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig())) {
            send(producer, topic, "order-1", "charge 1");
            send(producer, topic, "order-1", "charge 1, sent again");
            send(producer, topic, "order-2", "charge 2");
        }
        try (AnnotationConfigApplicationContext application = new AnnotationConfigApplicationContext()) {
            application
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("test", Map.of("test.topic", topic, "test.group", group)));
            application.register(Application.class);
            application.refresh();

            assertThat(application.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("billing"))
                    .isInstanceOf(InboxShareListenerContainer.class);
            assertThat(application
                            .getBean(KafkaListenerEndpointRegistry.class)
                            .getListenerContainer("shipping")
                            .metrics())
                    .as("one share consumer per member, each with its metrics")
                    .hasSize(2);
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
                ShareKafka.awaitAllAccepted(admin, group, new TopicPartition(topic, 0), 3);
                ShareKafka.awaitAllAccepted(admin, group + "-shipping", new TopicPartition(topic, 0), 3);
            }
            assertThat(application.getBean(Billing.class).charged)
                    .as("the listener ran once per event; the duplicate was accepted without it")
                    .containsExactlyInAnyOrder("charge 1", "charge 2");
            assertThat(application.getBean(Shipping.class).shipped)
                    .as("another group's listener is an inbox consumer of its own: it runs once per event too")
                    .containsExactlyInAnyOrder("charge 1", "charge 2");
        }
    }

    @Test
    void manualAcknowledgement_isRefused_theInboxAcknowledges() {
        InboxShareContainerFactory<String, String> factory = InboxShareContainerFactory.lease(
                new DefaultShareConsumerFactory<>(KafkaBroker.shareConsumerConfig("unused")),
                Inbox.builder(CaffeineInboxStore.builder().build())
                        .consumer("billing")
                        .build());
        factory.getContainerProperties().setShareAckMode(ContainerProperties.ShareAckMode.MANUAL);
        assertThatThrownBy(() -> factory.createContainer("orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("EXPLICIT");
    }

    @Test
    void springsRecordRecoverer_isRefused_namingTheLoopsRecoverer() {
        InboxShareContainerFactory<String, String> factory = InboxShareContainerFactory.lease(
                new DefaultShareConsumerFactory<>(KafkaBroker.shareConsumerConfig("unused")),
                Inbox.builder(CaffeineInboxStore.builder().build())
                        .consumer("billing")
                        .build());
        assertThatThrownBy(() -> factory.setShareConsumerRecordRecoverer(ShareConsumerRecordRecoverer.REJECTING))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("recoverer(");
    }

    @Test
    void transactionalMode_onAStoreThatCannotJoinATransaction_isRefused() {
        Inbox memory = Inbox.builder(CaffeineInboxStore.builder().build())
                .consumer("billing")
                .build();
        assertThatThrownBy(() -> InboxShareContainerFactory.transactional(
                        new DefaultShareConsumerFactory<>(KafkaBroker.shareConsumerConfig("unused")),
                        memory,
                        new org.springframework.jdbc.datasource.SimpleDriverDataSource()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("joins a transaction")
                .hasMessageContaining("CaffeineInboxStore");
    }

    @Test
    void nullArguments_areRefused() {
        assertThatThrownBy(() -> InboxShareContainerFactory.lease(null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("consumers");
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String id, String value)
            throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, value);
        record.headers().add("event-id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(30, TimeUnit.SECONDS);
    }
}
