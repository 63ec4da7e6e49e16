package dev.inbox.rabbitmq;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.PostgresPool;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adapter kit on {@link InboxConsumer} in transactional mode with windows of four deliveries to a
 * transaction ({@link InboxConsumer.Builder#window}), through the real RabbitMQ into PostgreSQL, on a
 * quorum queue with {@code x-delivery-limit} {@value dev.inbox.testing.RabbitQueues#QUORUM_DELIVERY_LIMIT}.
 */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference
// adapter on RabbitMQ); CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class TransactionalWindowInboxConsumerKitTest extends AdapterContract {

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(6);

    @Override
    protected DataSource ledgerDataSource() {
        return db.pool();
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new RabbitHarness(kit, db.pool(), 4, RabbitHarness.Queue.QUORUM);
    }
}
