/** Throughput of the broker adapters against the bare client loop doing the same work. */
package dev.inbox.benchmarks.adapters;
