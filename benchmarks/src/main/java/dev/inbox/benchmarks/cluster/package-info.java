/** One consumer on a 3-primary Redis Cluster the benchmark starts: where its records go, and its throughput. */
@NullMarked
package dev.inbox.benchmarks.cluster;

import org.jspecify.annotations.NullMarked;
