package dev.inbox.examples.orders;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Posts each order ({@code <order id>:<amount in cents>}) to the {@code orders} table. A plain
 * listener: the starter deduplicates it by the producer's {@code event-id} header
 * ({@code inbox.kafka.key-header}).
 */
@Component
class OrderListener {

    private final JdbcTemplate jdbc;

    OrderListener(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @KafkaListener(id = "orders", topics = "${orders.topic}")
    void on(String order) {
        String[] parts = order.split(":", 2);
        jdbc.update("INSERT INTO orders (order_id, cents) VALUES (?, ?)", parts[0], Long.parseLong(parts[1]));
    }
}
