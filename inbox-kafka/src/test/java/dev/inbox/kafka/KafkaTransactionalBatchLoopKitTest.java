package dev.inbox.kafka;

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

/** The adapter kit on {@link KafkaInboxLoop#transactionalBatch}: one transaction per partition of a poll, through the real broker into PostgreSQL. */
// About 100 s on Kafka, 40 s on RabbitMQ: the default build runs the kit on InboxConsumer (lease
// mode) and in the kit's own self-tests; CI (-Pcontainers) and -Pextended run this one too.
@Tag("extended")
class KafkaTransactionalBatchLoopKitTest extends AdapterContract {

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
        return new KafkaLoopHarness(kit, pool, true);
    }
}
