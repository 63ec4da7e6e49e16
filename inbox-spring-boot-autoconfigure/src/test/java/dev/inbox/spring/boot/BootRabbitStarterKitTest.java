package dev.inbox.spring.boot;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on the Boot starter's RabbitMQ wiring in lease mode (the in-memory store), each
 * consumer an application of its own. CI (-Pcontainers) and -Pextended run it.
 */
@Tag("extended")
class BootRabbitStarterKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new BootRabbitHarness(kit, null);
    }
}
