package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;

/** The adapter kit on {@link KafkaInboxLoop} in lease mode, through the real broker. */
class KafkaInboxLoopKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new KafkaLoopHarness(kit, null);
    }
}
