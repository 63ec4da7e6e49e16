package dev.inbox.rabbitmq;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;

/** The adapter kit on {@link InboxConsumer} in lease mode, through the real RabbitMQ. */
class InboxConsumerKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new RabbitHarness(kit, null);
    }
}
