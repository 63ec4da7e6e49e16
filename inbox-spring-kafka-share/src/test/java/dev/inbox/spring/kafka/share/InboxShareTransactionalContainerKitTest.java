package dev.inbox.spring.kafka.share;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.PostgresPool;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adapter kit on a container of {@link InboxShareContainerFactory#transactional} into the real
 * PostgreSQL, through a share group on the real broker: the listener's JDBC writes and the claim in
 * one transaction.
 */
@Tag("extended")
class InboxShareTransactionalContainerKitTest extends AdapterContract {

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(6);

    @Override
    protected DataSource ledgerDataSource() {
        return db.pool();
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SpringShareHarness(kit, db.pool());
    }
}
