package dev.inbox.benchmarks.storm;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One storm consumer's view of the store: the real store until the consumer crashes, then nothing
 * — each call fails as a server that cannot be reached does, and changes nothing. The store itself
 * stays open for the others (closing is the target's).
 */
final class CutOffStore implements InboxStore {

    private final InboxStore store;
    private final BooleanSupplier dead;

    CutOffStore(InboxStore store, BooleanSupplier dead) {
        this.store = store;
        this.dead = dead;
    }

    private void reachable() {
        if (dead.getAsBoolean()) {
            throw new InboxStoreException("storm: this consumer crashed and reaches the store no more", null, false);
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        reachable();
        return store.claim(request);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        reachable();
        return store.claimAll(requests);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        reachable();
        return store.complete(key, owner, retention);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        reachable();
        return store.complete(key, owner, retention, result);
    }

    @Override
    public int maxResultBytes() {
        return store.maxResultBytes();
    }

    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        reachable();
        return store.completeAll(held, retention);
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        reachable();
        return store.renew(key, owner, lease);
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        reachable();
        return store.release(key, owner);
    }

    @Override
    public long purge() {
        reachable();
        return store.purge();
    }

    @Override
    public void close() {
        // the target closes the real store
    }
}
