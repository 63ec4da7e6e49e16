package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link KafkaInboxLoop#transactionalBatch}, one transaction per partition of a poll, through the real broker into PostgreSQL. */
// About 100 s: the default build runs the kit on InboxConsumer (lease mode) and in the kit's own
// self-tests; CI (-Pcontainers) and -Pextended run this one too.
@Tag("extended")
class KafkaTransactionalBatchLoopKitTest extends PostgresKafkaKit {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new KafkaLoopHarness(kit, pool, true);
    }
}
