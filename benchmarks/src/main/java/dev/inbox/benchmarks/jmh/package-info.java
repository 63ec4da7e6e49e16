/**
 * JMH benchmarks: each store operation next to the raw driver issuing the same kind of statement
 * in the same run, so the framework's overhead is a measured ratio.
 */
@NullMarked
package dev.inbox.benchmarks.jmh;

import org.jspecify.annotations.NullMarked;
