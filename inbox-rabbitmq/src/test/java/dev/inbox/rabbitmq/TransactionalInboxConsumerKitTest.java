package dev.inbox.rabbitmq;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link InboxConsumer} in transactional mode, through the real RabbitMQ into PostgreSQL. */
// 15 to 25 s (four tests at once): the default build keeps the kit's own self-tests (a reference
// adapter on RabbitMQ); CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class TransactionalInboxConsumerKitTest extends AdapterContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void database() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(6);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void closeDatabase() {
        pool.close();
    }

    @Override
    protected DataSource ledgerDataSource() {
        return pool;
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new RabbitHarness(kit, pool);
    }
}
