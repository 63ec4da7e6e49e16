package dev.inbox.spring.kafka;

import dev.inbox.spring.Database;
import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adapter kit on {@link InboxBatchInterceptor}: a batch listener in Spring Kafka's container with a
 * {@code DataSourceTransactionManager} that the claim joins, into PostgreSQL.
 */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference adapter on RabbitMQ);
// CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class TransactionalBatchInterceptorKitTest extends AdapterContract {

    @RegisterExtension
    static final Database db = new Database();

    @Override
    protected DataSource ledgerDataSource() {
        return db.pool;
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringKafkaHarness(kit, db, true);
    }
}
