package dev.inbox.examples.httporders;

import dev.inbox.spring.web.IdempotentRoute;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** Places orders and shows them. */
@RestController
class OrdersController {

    /** What a client sends to place an order. */
    record OrderRequest(String item, int quantity) {}

    /** An order as it was placed. */
    record Order(long id, String customer, String item, int quantity) {}

    private final JdbcTemplate jdbc;

    OrdersController(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Places an order: one row in {@code http_orders} per run. {@code @IdempotentRoute} makes a repeat of
     * the request (same {@code Idempotency-Key}, same customer) answer the first order again without
     * running this method.
     */
    @PostMapping("/orders")
    @IdempotentRoute
    ResponseEntity<?> place(@RequestHeader("X-Customer") String customer, @RequestBody OrderRequest request) {
        if (request.item() == null || request.item().isBlank() || request.quantity() < 1) {
            return ResponseEntity.badRequest().body("an order needs an item and a quantity of at least 1");
        }
        Long id = jdbc.queryForObject(
                "INSERT INTO http_orders (customer, item, quantity) VALUES (?, ?, ?) RETURNING id",
                Long.class,
                customer,
                request.item(),
                request.quantity());
        Order order = new Order(id, customer, request.item(), request.quantity());
        return ResponseEntity.created(URI.create("/orders/" + id)).body(order);
    }

    /** How many orders a customer has: one per key, however often each was sent. */
    @GetMapping("/customers/{customer}/orders/count")
    long count(@PathVariable("customer") String customer) {
        Long count = jdbc.queryForObject("SELECT count(*) FROM http_orders WHERE customer = ?", Long.class, customer);
        return count == null ? 0 : count;
    }
}
