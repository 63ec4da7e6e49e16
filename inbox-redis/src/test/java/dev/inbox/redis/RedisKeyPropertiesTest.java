package dev.inbox.redis;

import dev.inbox.spi.InboxStore;
import dev.inbox.tck.KeyExactnessProperties;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisURI;

/**
 * Generated keys against the real server — braces, Lua metacharacters and bytes that are not
 * UTF-8 text included: rejected before I/O, or stored and compared exactly.
 */
class RedisKeyPropertiesTest extends KeyExactnessProperties {

    @Override
    protected InboxStore createStore() {
        return RedisInboxStore.builder(RedisURI.create(TestServers.redis()))
                .prefix("inbox-keys-it")
                .build();
    }
}
