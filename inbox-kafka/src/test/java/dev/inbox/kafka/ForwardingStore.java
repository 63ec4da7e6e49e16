package dev.inbox.kafka;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.List;

/** A store that passes every call to another; a test overrides the call it watches or breaks. */
class ForwardingStore implements InboxStore {

    private final InboxStore store;

    ForwardingStore(InboxStore store) {
        this.store = store;
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return store.claim(request);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        return store.claimAll(requests);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        return store.complete(key, owner, retention);
    }

    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        return store.completeAll(held, retention);
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        return store.renew(key, owner, lease);
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        return store.release(key, owner);
    }

    @Override
    public long purge() {
        return store.purge();
    }

    @Override
    public void close() {}
}
