/**
 * Effectively-once processing for consumers of at-least-once brokers.
 *
 * <p>{@link dev.inbox.Inbox} is what an application uses: it wraps a handler so that each logical
 * event is applied once per consumer, however often the broker redelivers it, and answers with a
 * {@link dev.inbox.HandleResult}. Keys come from {@link dev.inbox.keys.DedupKeys}; ordering is a
 * separate check, {@link dev.inbox.SequenceGuard}. Store authors implement {@link
 * dev.inbox.spi.InboxStore}; the {@code inbox-tck} module proves an implementation safe under
 * concurrent redelivery.
 */
@NullMarked
package dev.inbox;

import org.jspecify.annotations.NullMarked;
