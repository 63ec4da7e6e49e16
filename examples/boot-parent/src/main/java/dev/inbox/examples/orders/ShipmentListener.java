package dev.inbox.examples.orders;

import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Records each shipment (its body is the order id) in the {@code shipments} table. A plain listener:
 * the starter deduplicates it by the message's {@code message-id}.
 */
@Component
class ShipmentListener {

    private final JdbcTemplate jdbc;

    ShipmentListener(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @RabbitListener(id = "shipments", queues = "${shipments.queue}")
    void on(String orderId) {
        jdbc.update("INSERT INTO shipments (order_id) VALUES (?)", orderId);
    }
}
