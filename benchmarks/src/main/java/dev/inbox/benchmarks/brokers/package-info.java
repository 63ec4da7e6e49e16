/** Broker clients shared by the storm and the adapter benchmark. */
package dev.inbox.benchmarks.brokers;
