package dev.inbox.spring.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;

/** The adapter kit on {@link InboxRecordInterceptor} in Spring Kafka's container, lease mode, no transaction. */
class InboxRecordInterceptorKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) {
        return new SpringKafkaHarness(kit, null);
    }
}
