/**
 * Spring MVC and the {@code Idempotency-Key} filter of {@code inbox-http}: {@link
 * dev.inbox.spring.web.IdempotentRoute} marks the handler methods (or controllers) a repeat must not
 * run again, and {@link dev.inbox.spring.web.IdempotentRoutes} tells the filter which requests
 * reach one. Needs {@code spring-webmvc} and {@code inbox-http}, both optional dependencies of this
 * module.
 */
@NullMarked
package dev.inbox.spring.web;

import org.jspecify.annotations.NullMarked;
