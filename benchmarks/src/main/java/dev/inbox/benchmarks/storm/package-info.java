/**
 * The redelivery storm: a simulated consumer fleet hammering one inbox with redeliveries, faults
 * and crashes, and a ledger that counts each event's applications: exactly once in transactional
 * mode, and in lease mode none lost and every extra one explained by a crash.
 */
@NullMarked
package dev.inbox.benchmarks.storm;

import org.jspecify.annotations.NullMarked;
