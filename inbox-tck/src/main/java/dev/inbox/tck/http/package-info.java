/**
 * The HTTP kit: {@link dev.inbox.tck.http.HttpContract}, the rules of {@link
 * dev.inbox.tck.http.HttpRule} that every {@code Idempotency-Key} integration runs over real HTTP,
 * with the kit's own handler ({@link dev.inbox.tck.http.HttpKit}) behind the integration that the
 * test's {@link dev.inbox.tck.http.HttpHarness} serves; and {@link
 * dev.inbox.tck.http.TransactionalHttpContract}, transactional mode's rule, on a {@link
 * dev.inbox.tck.http.TransactionalHttpHarness} whose handler writes to the database.
 */
@NullMarked
package dev.inbox.tck.http;

import org.jspecify.annotations.NullMarked;
