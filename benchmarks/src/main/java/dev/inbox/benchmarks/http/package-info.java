/** The cost of the {@code Idempotency-Key} filter on an HTTP route, against the same route without it. */
@NullMarked
package dev.inbox.benchmarks.http;

import org.jspecify.annotations.NullMarked;
