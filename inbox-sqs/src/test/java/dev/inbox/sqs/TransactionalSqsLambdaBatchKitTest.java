package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link SqsLambdaBatch#transactional}, invoked as an SQS event source mapping
 * with {@code ReportBatchItemFailures} invokes it, through the real SQS server into PostgreSQL.
 */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class TransactionalSqsLambdaBatchKitTest extends PostgresSqsKit {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SqsLambdaHarness(kit, db.pool(), false);
    }
}
