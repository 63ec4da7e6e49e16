package dev.inbox.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.KeyExactnessProperties;
import net.jqwik.api.lifecycle.AfterContainer;

/** Generated keys against the real server: rejected before I/O, or stored and compared exactly. */
class MysqlKeyPropertiesTest extends KeyExactnessProperties {

    private static HikariDataSource pool;

    @Override
    protected InboxStore createStore() {
        synchronized (MysqlKeyPropertiesTest.class) {
            if (pool == null) {
                pool = MysqlTestDatabase.pool(4, true);
            }
        }
        MysqlInboxStore store =
                MysqlInboxStore.builder(pool).table("inbox_keys_it").build();
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
