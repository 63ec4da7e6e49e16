package dev.inbox.spring.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link InboxRecordInterceptor} in Spring Kafka's container, lease mode, no transaction. */
// About 50 s: the default build runs the kit on InboxConsumer and in the kit's own self-tests;
// CI (-Pcontainers) and -Pextended run this one too.
@Tag("extended")
class InboxRecordInterceptorKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringKafkaHarness(kit, null);
    }
}
