package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link SqsInboxLoop} in lease mode, through the real SQS server. */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class SqsInboxLoopKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SqsHarness(kit, null);
    }
}
