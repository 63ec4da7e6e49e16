package dev.inbox.examples.orders;

import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An orders service as most Spring Boot applications are built: on {@code spring-boot-starter-parent},
 * so on Boot's own versions of kafka-clients, amqp-client, Lettuce and pgjdbc. Orders arrive on a
 * Kafka topic, shipments on a RabbitMQ queue; both are posted to PostgreSQL once each, however often
 * they are delivered. The inbox takes no code here: the starter, a store, the two adapters and a few
 * properties ({@code application.properties}).
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    /** The orders topic, created at startup when missing. */
    @Bean
    NewTopic ordersTopic(@Value("${orders.topic}") String topic) {
        return new NewTopic(topic, 2, (short) 1);
    }

    /** The shipments queue, declared at startup when missing. */
    @Bean
    Queue shipmentsQueue(@Value("${shipments.queue}") String queue) {
        return new Queue(queue);
    }
}
