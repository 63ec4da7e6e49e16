package dev.inbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.KafkaBroker;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as it runs on Boot's managed client versions, on the real servers: the producers send
 * each order and shipment, re-send a third of them under the same id, and every one is applied
 * once. Each subclass runs it on one store; a topic, a group and a queue of the context's own keep
 * earlier runs (and the other subclass's still-cached context) out.
 */
@SpringBootTest
@DirtiesContext
abstract class OrdersServiceContract {

    private static final int EVENTS = 60;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        String url = TestServers.postgres();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.rabbitmq.addresses", TestServers::rabbitmq);
        registry.add("spring.kafka.bootstrap-servers", KafkaBroker::bootstrap);
        registry.add("spring.kafka.consumer.group-id", () -> "orders-" + run);
        registry.add("orders.topic", () -> "orders-" + run);
        registry.add("shipments.queue", () -> "shipments-" + run);
        registry.add("inbox.kafka.busy-backoff", () -> "100ms");
        registry.add("inbox.rabbit.busy-backoff", () -> "100ms");
    }

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Autowired
    RabbitTemplate rabbit;

    @Autowired
    JdbcTemplate jdbc;

    @Value("${orders.topic}")
    String topic;

    @Value("${shipments.queue}")
    String queue;

    @Test
    void runsOnBootsOwnKafkaAndRabbitClients() {
        assertThat(AppInfoParser.getVersion()).as("kafka-clients").isEqualTo(System.getProperty("boot.kafka.version"));
        assertThat(com.rabbitmq.client.impl.ClientVersion.VERSION)
                .as("amqp-client")
                .isEqualTo(System.getProperty("boot.amqp-client.version"));
    }

    @Test
    void resentOrdersAndShipments_areAppliedOnceEach() throws Exception {
        String prefix = topic + "-o";
        for (int round = 0; round < 2; round++) {
            for (int i : IntStream.range(0, EVENTS).filter(round == 0 ? n -> true : n -> n % 3 == 0).toArray()) {
                String order = prefix + i;
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, order, order + ":" + (100 + i));
                record.headers().add("event-id", ("order-" + order).getBytes(StandardCharsets.UTF_8));
                kafka.send(record).get();
                MessageProperties properties = new MessageProperties();
                properties.setMessageId("shipment-" + order);
                rabbit.send("", queue, new Message(order.getBytes(StandardCharsets.UTF_8), properties));
            }
        }

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while ((rows("orders", prefix).size() < EVENTS || rows("shipments", prefix).size() < EVENTS)
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(1_000); // a late second application would show

        for (String table : List.of("orders", "shipments")) {
            Map<String, Long> rows = rows(table, prefix);
            assertThat(rows).as(table).hasSize(EVENTS);
            assertThat(rows).allSatisfy((id, count) -> assertThat(count).as(table + " " + id).isEqualTo(1L));
        }
    }

    private Map<String, Long> rows(String table, String prefix) {
        return jdbc.queryForList("SELECT order_id FROM " + table + " WHERE order_id LIKE ?", String.class, prefix + "%")
                .stream()
                .collect(Collectors.groupingBy(id -> id, Collectors.counting()));
    }
}
