/**
 * In-memory inbox on Caffeine: {@link dev.inbox.caffeine.CaffeineInboxStore}, the embedded default
 * for tests, demos and single-instance applications; {@link dev.inbox.caffeine.CaffeineSequenceGuard};
 * and {@link dev.inbox.caffeine.NearCacheInboxStore}, which answers repeat duplicates of any store
 * from memory.
 */
@NullMarked
package dev.inbox.caffeine;

import org.jspecify.annotations.NullMarked;
