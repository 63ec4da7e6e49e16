package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link SqsLambdaBatch#transactional} fed from a FIFO queue (two message groups,
 * a FIFO dead-letter queue after five receives), into PostgreSQL.
 */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class TransactionalSqsFifoLambdaBatchKitTest extends PostgresSqsKit {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SqsLambdaHarness(kit, db.pool(), true);
    }
}
