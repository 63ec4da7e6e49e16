/**
 * Retry-safe HTTP requests with the {@code Idempotency-Key} header on any inbox store: {@link
 * dev.inbox.http.IdempotentRequests} decides (claim, replay, refuse), {@link
 * dev.inbox.http.IdempotencyFilter} applies it to Jakarta Servlet routes.
 */
@NullMarked
package dev.inbox.http;

import org.jspecify.annotations.NullMarked;
