package dev.inbox.dynamodb;

import dev.inbox.spi.InboxStore;
import dev.inbox.tck.KeyExactnessProperties;
import dev.inbox.testing.Dynalite;
import java.time.Duration;
import net.jqwik.api.lifecycle.AfterContainer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Generated keys against dynalite: rejected before I/O, or stored and compared exactly. */
class DynamoDbKeyPropertiesTest extends KeyExactnessProperties {

    private static Dynalite dynalite;
    private static DynamoDbClient client;

    @Override
    protected InboxStore createStore() throws Exception {
        synchronized (DynamoDbKeyPropertiesTest.class) {
            if (dynalite == null) {
                dynalite = Dynalite.forTests();
                client = DynamoDbInboxStoreTest.client(dynalite.endpoint(), Duration.ofSeconds(10));
            }
        }
        DynamoDbInboxStore store =
                DynamoDbInboxStore.builder(client).table("inbox_keys_it").build();
        store.createTableIfMissing();
        return store;
    }

    @AfterContainer
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (dynalite != null) {
            dynalite.close();
        }
    }
}
