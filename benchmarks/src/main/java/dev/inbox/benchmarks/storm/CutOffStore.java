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
import java.util.function.Consumer;

/**
 * One storm consumer's view of the store: the real store until the consumer crashes, then nothing
 * — each call fails as a server that cannot be reached does, and changes nothing. The store itself
 * stays open for the others (closing is the target's).
 *
 * <p>It also tells {@code refused} of each completion the store did not record because the claim
 * was no longer this consumer's (its lease lapsed and another delivery took the event over): the
 * work ran, and the event may be applied once more.
 */
final class CutOffStore implements InboxStore {

    private final InboxStore store;
    private final BooleanSupplier dead;
    private final Consumer<InboxKey> refused;

    CutOffStore(InboxStore store, BooleanSupplier dead, Consumer<InboxKey> refused) {
        this.store = store;
        this.dead = dead;
        this.refused = refused;
    }

    private boolean recorded(InboxKey key, boolean recorded) {
        if (!recorded) {
            refused.accept(key);
        }
        return recorded;
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
        return recorded(key, store.complete(key, owner, retention));
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        reachable();
        return recorded(key, store.complete(key, owner, retention, result));
    }

    @Override
    public int maxResultBytes() {
        return store.maxResultBytes();
    }

    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        reachable();
        List<Boolean> recorded = store.completeAll(held, retention);
        for (int i = 0; i < recorded.size(); i++) {
            recorded(held.get(i).key(), recorded.get(i));
        }
        return recorded;
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
