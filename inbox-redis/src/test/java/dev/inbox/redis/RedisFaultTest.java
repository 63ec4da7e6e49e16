package dev.inbox.redis;

import dev.inbox.SequenceGuard;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.StoreFaultContract;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisURI;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Rules E3–E5 against the real server through the kit's fault proxy, with Lettuce's defaults
 * (auto-reconnect; commands sent on a connection that breaks are re-sent after reconnecting, which
 * rule C5 makes safe) and a command timeout.
 */
class RedisFaultTest extends StoreFaultContract {

    @Override
    protected InetSocketAddress server() {
        RedisURI uri = RedisURI.create(TestServers.redis());
        return new InetSocketAddress(uri.getHost(), uri.getPort());
    }

    @Override
    protected InboxStore createStore(String host, int port, Duration timeout) {
        return RedisTestStores.storeAt(host, port, timeout);
    }

    @Override
    protected SequenceGuard guardOf(InboxStore store) {
        return ((RedisInboxStore) store).sequenceGuard();
    }

    @Override
    protected boolean purgeTalksToServer() {
        return false; // records expire natively
    }
}
