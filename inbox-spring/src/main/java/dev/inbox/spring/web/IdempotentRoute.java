package dev.inbox.spring.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring MVC or WebFlux handler method — or every handler method of a controller — as safe to retry
 * with an {@code Idempotency-Key} header: a repeat of a key's request gets the first response back
 * instead of running the method again.
 *
 * <pre>{@code
 * @PostMapping("/payments")
 * @IdempotentRoute
 * ResponseEntity<Payment> pay(@RequestBody PaymentRequest request) { ... }
 * }</pre>
 *
 * <p>The annotation only marks: the {@link dev.inbox.http.IdempotencyFilter} built with {@link
 * IdempotentRoutes} (Spring MVC), or the {@link IdempotencyWebFilter} built with {@link
 * ReactiveIdempotentRoutes} (WebFlux), does the work, with the decisions (scope, caps, what is
 * kept) of its {@link dev.inbox.http.IdempotentRequests}. The Boot starter registers that filter
 * when {@code inbox.http.scope} is set. Only the filter's guarded methods (POST and PATCH by default) are
 * guarded, whatever the mapping accepts.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface IdempotentRoute {}
