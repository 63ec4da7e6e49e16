package dev.inbox.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.TestServers;

/** The filter on MySQL or MariaDB (the test server: {@link TestServers#mysql()}). */
class MysqlIdempotencyFilterTest extends IdempotencyFilterContract {

    private HikariDataSource pool;

    @Override
    protected InboxStore createStore() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.mysql());
        config.setMaximumPoolSize(10);
        pool = new HikariDataSource(config);
        MysqlInboxStore store = MysqlInboxStore.builder(pool).build();
        store.createSchemaIfMissing();
        return store;
    }

    @Override
    protected void close(InboxStore store) {
        store.close();
        pool.close();
    }
}
