package dev.inbox.spring.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link InboxBatchInterceptor} in Spring Kafka's container, a batch listener that
 * names a failing record with a {@code BatchListenerFailedException}, lease mode, no transaction.
 */
// CI (-Pcontainers) and -Pextended run the kit on every adapter; the default build keeps the kit's self-tests.
@Tag("extended")
class InboxBatchInterceptorKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringKafkaHarness(kit, null, true);
    }
}
