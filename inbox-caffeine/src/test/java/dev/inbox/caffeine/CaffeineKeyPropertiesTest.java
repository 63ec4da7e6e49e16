package dev.inbox.caffeine;

import dev.inbox.spi.InboxStore;
import dev.inbox.tck.KeyExactnessProperties;

/** Generated keys: rejected before the store sees them, or stored and compared exactly. */
class CaffeineKeyPropertiesTest extends KeyExactnessProperties {

    @Override
    protected InboxStore createStore() {
        return CaffeineInboxStore.builder().build();
    }
}
