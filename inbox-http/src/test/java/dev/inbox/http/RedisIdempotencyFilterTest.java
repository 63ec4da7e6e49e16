package dev.inbox.http;

import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisURI;

/** The filter on Redis (the test server: {@link TestServers#redis()}). */
class RedisIdempotencyFilterTest extends IdempotencyFilterContract {

    @Override
    protected InboxStore createStore() {
        return RedisInboxStore.builder(RedisURI.create(TestServers.redis())).build();
    }
}
