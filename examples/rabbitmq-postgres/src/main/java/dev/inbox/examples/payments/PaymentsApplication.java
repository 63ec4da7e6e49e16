package dev.inbox.examples.payments;

import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A payments service: it consumes payments from the RabbitMQ queue {@code payments.queue} and posts each
 * to the ledger in PostgreSQL exactly once, however often RabbitMQ redelivers it or the producer
 * re-sends it. The inbox needs no code here: the starter deduplicates {@link PaymentListener}, and
 * with {@code inbox.rabbit.transactional=true} its claim and the ledger row commit together.
 */
@SpringBootApplication
public class PaymentsApplication {

    @Bean
    Queue payments(@Value("${payments.queue}") String queue) {
        return new Queue(queue, true);
    }

    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}
