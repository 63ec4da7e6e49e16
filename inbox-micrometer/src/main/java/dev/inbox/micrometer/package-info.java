/**
 * Publishes {@link dev.inbox.InboxMetrics} to Micrometer. Micrometer is an optional dependency:
 * add {@code io.micrometer:micrometer-core} to use this package.
 */
@NullMarked
package dev.inbox.micrometer;

import org.jspecify.annotations.NullMarked;
