/** Purge of a large table while consumers claim at full speed, against one raw {@code DELETE}. */
package dev.inbox.benchmarks.purge;
