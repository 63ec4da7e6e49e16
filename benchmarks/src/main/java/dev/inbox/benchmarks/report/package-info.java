/** Turns JMH result files into the results table and chart of {@code benchmarks/README.md}. */
@NullMarked
package dev.inbox.benchmarks.report;

import org.jspecify.annotations.NullMarked;
