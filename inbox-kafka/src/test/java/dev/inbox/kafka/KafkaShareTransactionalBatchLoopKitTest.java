package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link KafkaShareInboxLoop#transactionalBatch} — the records in hand in one
 * transaction — through a share group on the real broker into PostgreSQL.
 */
@Tag("extended")
class KafkaShareTransactionalBatchLoopKitTest extends PostgresKafkaKit {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new ShareLoopHarness(kit, db.pool(), true);
    }
}
