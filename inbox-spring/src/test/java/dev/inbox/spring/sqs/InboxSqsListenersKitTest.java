package dev.inbox.spring.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link InboxSqsListeners} in Spring Cloud AWS's container, lease mode, acknowledgement ON_SUCCESS. */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class InboxSqsListenersKitTest extends AdapterContract {

    /**
     * 5 s, the queue's visibility timeout too (the harness makes them equal): Spring Cloud AWS's
     * container holds a received message in its own pipeline before the listener claims it, and
     * deletes it a moment after the listener is done. (A9 seeing a message delivered twice on loaded
     * machines, first put down to those gaps, was Spring Cloud AWS dropping batched acknowledgements
     * at a stop: the harness acknowledges immediately, see inbox-sqs's README.)
     */
    @Override
    protected Duration lease() {
        return Duration.ofSeconds(5);
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SpringSqsHarness(kit);
    }
}
