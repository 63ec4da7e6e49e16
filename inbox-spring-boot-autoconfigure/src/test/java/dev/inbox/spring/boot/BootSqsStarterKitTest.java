package dev.inbox.spring.boot;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on the Boot starter's {@code @SqsListener} wiring (lease mode, the in-memory
 * store), each consumer an application of its own. CI (-Pcontainers) and -Pextended run it.
 */
@Tag("extended")
class BootSqsStarterKitTest extends AdapterContract {

    /**
     * 5 s, the queue's visibility timeout too, as for the Spring SQS listeners' own kit: Spring Cloud
     * AWS's container holds a received message in its pipeline before the listener claims it, and
     * deletes it a moment after the listener is done.
     */
    @Override
    protected Duration lease() {
        return Duration.ofSeconds(5);
    }

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new BootSqsHarness(kit);
    }
}
