package dev.inbox.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.KeyExactnessProperties;
import net.jqwik.api.lifecycle.AfterContainer;

/** Generated keys against the real server: rejected before I/O, or stored and compared exactly. */
class PostgresKeyPropertiesTest extends KeyExactnessProperties {

    private static HikariDataSource pool;

    @Override
    protected InboxStore createStore() {
        synchronized (PostgresKeyPropertiesTest.class) {
            if (pool == null) {
                pool = PostgresTestDatabase.pool(4, true);
            }
        }
        PostgresInboxStore store =
                PostgresInboxStore.builder(pool).table("inbox_keys_it").build();
        store.createSchemaIfMissing();
        return store;
    }

    @AfterContainer
    static void closePool() {
        if (pool != null) {
            pool.close();
        }
    }
}
