package dev.inbox.spring.kafka.share;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import org.junit.jupiter.api.Tag;

/** The adapter kit on a container of {@link InboxShareContainerFactory} (lease mode), through a share group on the real broker. */
@Tag("extended")
class InboxShareContainerKitTest extends AdapterContract {

    @Override
    protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
        return new SpringShareHarness(kit, null);
    }
}
