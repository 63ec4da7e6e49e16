package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link SqsInboxLoop} in lease mode on a FIFO queue (two message groups, a FIFO
 * dead-letter queue after five receives), through the real SQS server: a failed, busy or keyless
 * message holds back the later ones of its group.
 */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class SqsFifoInboxLoopKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SqsHarness(kit, null, false, true);
    }
}
