package dev.inbox.kafka;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on {@link KafkaShareInboxLoop} (lease mode), through a share group on the real broker. */
@Tag("extended")
class KafkaShareInboxLoopKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new ShareLoopHarness(kit, null);
    }
}
