/**
 * The adapter kit: {@link dev.inbox.tck.adapter.AdapterContract}, the rules of {@link
 * dev.inbox.tck.adapter.AdapterRule} that every broker adapter runs through a real broker, with
 * the kit's own ledger ({@link dev.inbox.tck.adapter.AdapterKit}) and the adapter's test's {@link
 * dev.inbox.tck.adapter.AdapterHarness}.
 */
@NullMarked
package dev.inbox.tck.adapter;

import org.jspecify.annotations.NullMarked;
