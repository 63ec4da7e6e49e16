/**
 * {@code Idempotency-Key} for Spring MVC and WebFlux, with the decisions of {@code inbox-http}: {@link
 * dev.inbox.spring.web.IdempotentRoute} marks the handler methods (or controllers) a repeat must not
 * run again. Spring MVC: {@code inbox-http}'s Servlet filter, told by {@link
 * dev.inbox.spring.web.IdempotentRoutes} which requests reach a marked handler (needs {@code
 * spring-webmvc}). WebFlux: {@link dev.inbox.spring.web.IdempotencyWebFilter}, with {@link
 * dev.inbox.spring.web.ReactiveIdempotentRoutes} or {@link dev.inbox.spring.web.IdempotentPathPatterns}
 * (needs {@code spring-webflux}). {@code inbox-http}, {@code spring-webmvc} and {@code
 * spring-webflux} are optional dependencies of this module.
 */
@NullMarked
package dev.inbox.spring.web;

import org.jspecify.annotations.NullMarked;
