/**
 * The redelivery storm: a simulated consumer fleet hammering one inbox with redeliveries, faults
 * and crashes, and a ledger that proves every event was applied exactly once.
 */
@NullMarked
package dev.inbox.benchmarks.storm;

import org.jspecify.annotations.NullMarked;
