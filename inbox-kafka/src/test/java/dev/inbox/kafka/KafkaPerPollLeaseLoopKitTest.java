package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link KafkaInboxLoop} in lease mode with {@link
 * KafkaInboxLoop.Builder#completePerPoll()}: each poll's claims completed together, through the real
 * broker.
 */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference
// adapter on RabbitMQ); CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class KafkaPerPollLeaseLoopKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new KafkaLoopHarness(kit, null, true);
    }
}
