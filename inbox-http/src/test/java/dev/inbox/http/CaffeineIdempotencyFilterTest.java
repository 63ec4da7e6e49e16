package dev.inbox.http;

import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.InboxStore;

/** The filter on the embedded store. */
class CaffeineIdempotencyFilterTest extends IdempotencyFilterContract {
    @Override
    protected InboxStore createStore() {
        return CaffeineInboxStore.builder().build();
    }
}
