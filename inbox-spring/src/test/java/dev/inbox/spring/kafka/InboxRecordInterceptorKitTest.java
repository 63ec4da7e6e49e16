package dev.inbox.spring.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link InboxRecordInterceptor} in Spring Kafka's container, lease mode, no transaction. */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference adapter on RabbitMQ);
// CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class InboxRecordInterceptorKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringKafkaHarness(kit, null);
    }
}
