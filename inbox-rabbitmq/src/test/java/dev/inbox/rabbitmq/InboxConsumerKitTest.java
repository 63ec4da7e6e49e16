package dev.inbox.rabbitmq;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/**
 * The adapter kit on {@link InboxConsumer} in lease mode, through the real RabbitMQ, on a quorum queue
 * with {@code x-delivery-limit} {@value dev.inbox.testing.RabbitQueues#QUORUM_DELIVERY_LIMIT}.
 */
// 15 to 20 s (seven tests at once): the default build keeps the kit's own self-tests (a reference adapter on RabbitMQ);
// CI (-Pcontainers) and -Pextended run the kit on every adapter.
@Tag("extended")
class InboxConsumerKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new RabbitHarness(kit, null, RabbitHarness.Queue.QUORUM);
    }
}
