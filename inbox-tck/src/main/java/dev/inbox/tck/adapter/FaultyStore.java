package dev.inbox.tck.adapter;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The store an adapter under test talks to: the real one, with the failures the kit switches on.
 * A failing claim or completion throws a retryable {@link InboxStoreException} and changes nothing
 * in the real store, as a server that cannot be reached would.
 */
final class FaultyStore implements TransactionalInboxStore {

    /** The failures switched on; one set per kit, shared by every consumer's store. */
    static final class Faults {
        volatile boolean claimsFail;
        /** How many claim calls (single, batch, transactional) failed while {@link #claimsFail} was on. */
        final AtomicInteger failedClaims = new AtomicInteger();

        final Set<String> completionsOf = ConcurrentHashMap.newKeySet();
        /** Ids whose next completion fails, once. */
        final Set<String> completionOnce = ConcurrentHashMap.newKeySet();
        /** Completions failed through {@link #completionOnce}. */
        final AtomicInteger completionsFailedOnce = new AtomicInteger();
        /** How often each id was claimed, in any form: an adapter that retries a BUSY claim claims again. */
        final Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();
        /** Ids whose next completion first runs {@link #atCompletion} (the consumer dies there), once. */
        final Set<String> crashAtCompletionOf = ConcurrentHashMap.newKeySet();
        /** What runs at a completion {@link #crashAtCompletionOf} names, before the real one. */
        volatile Runnable atCompletion = () -> {};

        /** The consumer the adapter claims under: the kit's, or one an adapter derives from it. */
        volatile @Nullable String consumer;

        void claimed(InboxKey key) {
            consumer = key.consumer();
            claims.computeIfAbsent(key.id(), id -> new AtomicInteger()).incrementAndGet();
        }
    }

    private final InboxStore store;
    private final Faults faults;

    FaultyStore(InboxStore store, Faults faults) {
        this.store = store;
        this.faults = faults;
    }

    private void claimFault() {
        if (faults.claimsFail) {
            faults.failedClaims.incrementAndGet();
            throw new InboxStoreException("adapter kit: the store is down at the claim", null, true);
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        claimFault();
        faults.claimed(request.key());
        return store.claim(request);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        claimFault();
        requests.forEach(request -> faults.claimed(request.key()));
        return store.claimAll(requests);
    }

    @Override
    public ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
        claimFault();
        faults.claimed(key);
        return transactional().claimInTransaction(connection, key, retention, fingerprint);
    }

    /** The real store's batch form, so an adapter that claims a batch in one statement is tried on it. */
    @Override
    public List<ClaimResult> claimAllInTransaction(Connection connection, List<InboxKey> keys, Duration retention) {
        claimFault();
        keys.forEach(faults::claimed);
        return transactional().claimAllInTransaction(connection, keys, retention);
    }

    @Override
    public void keepResultInTransaction(Connection connection, InboxKey key, byte[] result) {
        transactional().keepResultInTransaction(connection, key, result);
    }

    private void completionFault(InboxKey key) {
        if (faults.crashAtCompletionOf.remove(key.id())) {
            faults.atCompletion.run();
        }
        if (faults.completionsOf.contains(key.id())) {
            throw new InboxStoreException("adapter kit: the completion of " + key + " failed", null, true);
        }
        if (faults.completionOnce.remove(key.id())) {
            faults.completionsFailedOnce.incrementAndGet();
            throw new InboxStoreException("adapter kit: the completion of " + key + " failed, once", null, true);
        }
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        completionFault(key);
        return store.complete(key, owner, retention);
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        completionFault(key);
        return store.complete(key, owner, retention, result);
    }

    @Override
    public int maxResultBytes() {
        return store.maxResultBytes();
    }

    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        for (HeldKey item : held) {
            completionFault(item.key());
        }
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

    /** The real store's admin operations, without faults. */
    @Override
    public dev.inbox.spi.InboxAdmin admin() {
        return store.admin();
    }

    /** Leaves the real store open: the harness that built it closes it. */
    @Override
    public void close() {}

    private TransactionalInboxStore transactional() {
        if (store instanceof TransactionalInboxStore transactional) {
            return transactional;
        }
        throw new IllegalStateException(store + " has no transactional mode; give the kit a TransactionalInboxStore");
    }

    @Override
    public String toString() {
        return "FaultyStore[" + store + "]";
    }
}
