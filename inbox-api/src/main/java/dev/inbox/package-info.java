/**
 * Effectively-once processing for consumers of at-least-once brokers.
 *
 * <p>{@link dev.inbox.Inbox} is what an application uses: it wraps a handler so that each logical
 * event is applied once per consumer, however often the broker redelivers it. {@link
 * dev.inbox.InboxStore} is the small SPI every backend implements (claim, complete, release,
 * purge); the {@code inbox-tck} module proves an implementation safe under concurrent redelivery.
 */
@NullMarked
package dev.inbox;

import org.jspecify.annotations.NullMarked;
