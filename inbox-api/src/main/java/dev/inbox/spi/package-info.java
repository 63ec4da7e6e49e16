/**
 * The store contract, for those who write a store: {@link dev.inbox.spi.InboxStore} (claim,
 * complete, release, purge), the claim's arguments and answers ({@link dev.inbox.spi.ClaimRequest},
 * {@link dev.inbox.spi.ClaimResult}), the one claim decision for stores that decide in Java
 * ({@link dev.inbox.spi.StoredRecord}), and helpers for batches and argument checks.
 *
 * <p>Applications do not need this package: they use {@link dev.inbox.Inbox} and a store's
 * builder. A store is proven against this contract by the {@code inbox-tck} module.
 */
@NullMarked
package dev.inbox.spi;

import org.jspecify.annotations.NullMarked;
