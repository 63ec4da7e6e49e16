package dev.inbox.spring.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link InboxSqsListeners} in Spring Cloud AWS's container, lease mode, acknowledgement ON_SUCCESS. */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class InboxSqsListenersKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringSqsHarness(kit);
    }
}
