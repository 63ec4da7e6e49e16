package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link KafkaInboxLoop} in transactional mode, one transaction per record, through the real broker into PostgreSQL. */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference adapter on
// RabbitMQ); CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class KafkaTransactionalLoopKitTest extends PostgresKafkaKit {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new KafkaLoopHarness(kit, db.pool(), false);
    }
}
