package dev.inbox.spring.boot;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.PostgresPool;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adapter kit on the Boot starter's RabbitMQ wiring with {@code inbox.rabbit.transactional=true}:
 * each listener runs in a transaction of the application's DataSource transaction manager, which
 * the claim joins, on the real PostgreSQL. CI (-Pcontainers) and -Pextended run it.
 */
@Tag("extended")
class BootRabbitStarterTransactionalKitTest extends AdapterContract {

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(8);

    @Override
    protected DataSource ledgerDataSource() {
        return db.pool();
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new BootRabbitHarness(kit, db.pool());
    }
}
