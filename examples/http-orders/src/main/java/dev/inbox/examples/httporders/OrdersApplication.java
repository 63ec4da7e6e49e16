package dev.inbox.examples.httporders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An orders API whose {@code POST /orders} is safe to retry: a client that sends the same {@code
 * Idempotency-Key} again — after a timeout, a dropped connection, a double click — gets the first
 * order back instead of a second one. The inbox takes one annotation ({@code @IdempotentRoute} on
 * {@link OrdersController#place}) and one property ({@code inbox.http.scope}).
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
