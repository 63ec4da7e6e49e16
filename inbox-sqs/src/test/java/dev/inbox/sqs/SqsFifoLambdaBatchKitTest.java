package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link SqsLambdaBatch#lease} fed from a FIFO queue (two message groups, a FIFO
 * dead-letter queue after five receives), as an SQS event source mapping with {@code
 * ReportBatchItemFailures} invokes it: a record that is not done holds back the rest of the batch.
 */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class SqsFifoLambdaBatchKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SqsLambdaHarness(kit, null, true);
    }
}
