package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * An inbox's claim API, for adapters and frameworks that run the work themselves: claim one event
 * or a whole poll, run the work of each {@link Claim#isAcquired() acquired} claim, then complete or
 * release it — one by one or {@link #completeAll together}. {@link Inbox} is the user's side of the
 * same inbox ({@code handle}, {@code handleAll}, {@code purge}); every adapter here and the HTTP
 * filter claim through this type, from {@link Inbox#claims()}.
 *
 * <pre>{@code
 * InboxClaims claims = inbox.claims();
 * List<Claim> poll = claims.claimAll(ids);      // one store round trip
 * List<Claim> done = new ArrayList<>();
 * for (Claim claim : poll) {
 *     if (!claim.isAcquired()) continue;         // DUPLICATE: acknowledge; BUSY: hold the message
 *     try { work(claim.id()); done.add(claim); } catch (Exception e) { claim.release(); }
 * }
 * claims.completeAll(done);                      // one more; then acknowledge the poll
 * }</pre>
 *
 * <p>Every claim and completion is retried on a retryable store failure with the same owner (safe:
 * a claim whose reply was lost is answered {@code ACQUIRED} again, never {@code DUPLICATE}), counted
 * by the inbox's {@link InboxMetrics} and observed by its {@link InboxObserver}, exactly as {@link
 * Inbox#handle} does. A claim's lease is renewed in the background once {@link Claim#keepRenewed()}
 * is called, on the inbox's {@link Renewals}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class InboxClaims {

    private static final System.Logger LOG = System.getLogger(InboxClaims.class.getName());

    private final InboxStore store;
    private final String consumer;
    private final Duration retention;
    private final Duration lease;
    private final int claimAttempts;
    private final InboxMetrics metrics;
    private final InboxObserver observer;
    private final String storeKind;
    private final Renewals renewals;
    private final @Nullable Duration renewEveryConfigured;
    private final Duration renewEvery;
    private final Duration maxInHand;
    private final RetentionAdvisor advisor;
    private volatile boolean advisorPublished;

    /** The settings {@link Inbox.Builder} checked; {@code renewEvery} null for a third of the lease. */
    InboxClaims(
            InboxStore store,
            String consumer,
            Duration retention,
            Duration lease,
            int claimAttempts,
            InboxMetrics metrics,
            InboxObserver observer,
            Renewals renewals,
            @Nullable Duration renewEvery,
            Duration maxInHand,
            RetentionAdvisor advisor) {
        requireArgument(
                renewEvery == null || renewEvery.compareTo(lease) < 0,
                "renewEvery must be shorter than the lease (" + lease + ") but was " + renewEvery);
        this.store = store;
        this.consumer = consumer;
        this.retention = retention;
        this.lease = lease;
        this.claimAttempts = claimAttempts;
        this.metrics = metrics;
        this.observer = observer;
        this.storeKind = store.getClass().getSimpleName();
        this.renewals = renewals;
        this.renewEveryConfigured = renewEvery;
        this.renewEvery = renewEvery != null ? renewEvery : lease.dividedBy(3);
        this.maxInHand = maxInHand;
        this.advisor = advisor;
    }

    /**
     * Claims one event and leaves the work to the caller, for frameworks that run the work
     * themselves between two callbacks (a listener container's interceptor): run the work if the
     * claim {@link Claim#isAcquired() is acquired}, then {@link Claim#complete()} or {@link
     * Claim#release()} it.
     *
     * @param id the event's dedup id
     * @throws IllegalArgumentException if {@code id} is not a valid key (before any I/O)
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     */
    public Claim claim(String id) {
        return claim(id, null);
    }

    /**
     * {@link #claim(String)} with a payload fingerprint, as in {@link Inbox#handle(String, String,
     * Work)}: a {@code DUPLICATE} answer then says how the fingerprints compared ({@link
     * ClaimResult#fingerprint()}), and carries the result kept with the record ({@link
     * ClaimResult#storedResult()}) for a claim later ended by {@link Claim#complete(byte[])}.
     *
     * @param id the event's dedup id
     * @param fingerprint for example {@code DedupKeys.sha256(payload)}, or null for none
     * @throws IllegalArgumentException if {@code id} is not a valid key (before any I/O)
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     */
    public Claim claim(String id, @Nullable String fingerprint) {
        ClaimRequest request = request(id).withFingerprint(fingerprint);
        long claimedAt = System.nanoTime();
        return new Claim(this, request.key(), request.owner(), claim(request), claimedAt);
    }

    /**
     * Claims a batch of events in as few round trips as the store allows ({@link
     * InboxStore#claimAll}), for a consumer that polls many messages at once: run the work of each
     * {@link Claim#isAcquired() acquired} claim, then {@link Claim#complete()} or {@link
     * Claim#release()} it (or {@link #completeAll} them). An id repeated in the batch is {@code
     * DUPLICATE} after its first occurrence.
     *
     * @param ids the events' dedup ids, in delivery order
     * @return one claim per id, in the same order
     * @throws IllegalArgumentException if {@code ids} is null or an id is not a valid key (before
     *     any I/O)
     * @throws InboxStoreException if the store could not answer; nothing may be acknowledged
     */
    public List<Claim> claimAll(List<String> ids) {
        requireNonNull(ids, "ids");
        List<ClaimRequest> requests = new ArrayList<>(ids.size());
        for (String id : ids) {
            requests.add(request(id));
        }
        if (requests.isEmpty()) {
            return List.of();
        }
        try (InboxObserver.Step step = observer.start("claimAll", consumer, null, storeKind)) {
            return claimAll(requests, step);
        }
    }

    /**
     * Completes acquired claims of this inbox in as few round trips as the store allows ({@link
     * InboxStore#completeAll}), retried like {@link Claim#complete()}. Renewals started by {@link
     * Claim#keepRenewed()} end first, as {@link Claim#complete()} ends them.
     *
     * @return one answer per claim, in order: false when its lease had ended and another delivery
     *     took the event over (counted as a lost lease)
     * @throws IllegalArgumentException if {@code claims} is null or holds a null, a claim of another
     *     inbox, or one that is not {@code ACQUIRED}
     * @throws InboxStoreException if the store could not record them
     */
    public List<Boolean> completeAll(List<Claim> claims) {
        List<Claim> batch = InboxArguments.requireNoNulls(claims, "claims");
        List<HeldKey> held = new ArrayList<>(batch.size());
        for (Claim claim : batch) {
            requireArgument(claim.claims() == this, "claim " + claim + " belongs to another inbox");
            requireArgument(claim.isAcquired(), "claim " + claim + " is not ACQUIRED");
            held.add(new HeldKey(claim.key(), claim.owner()));
        }
        // As Claim#complete: the renewals end before the store is asked (a completed claim renewed is
        // refused, and counted as a failed renewal).
        batch.forEach(Claim::stopRenewing);
        if (held.isEmpty()) {
            return List.of();
        }
        try (InboxObserver.Step step = observer.start("completeAll", consumer, null, storeKind)) {
            return completeAll(held, step);
        }
    }

    /**
     * Keeps every acquired claim of {@code claims} renewed, as {@link Claim#keepRenewed()} does for
     * one, with one renewal task for all of them instead of one each: for a consumer that claims a
     * whole poll at once and runs its work one record after another. Every {@link
     * Inbox.Builder#renewEvery renewEvery} (from the earliest claim) each claim not yet completed or
     * released is renewed; the task ends when the last of them is, or after the inbox's {@link
     * Inbox.Builder#maxInHand maxInHand}. A renewal the store refuses ends that claim's renewals only
     * (counted, as for one claim). {@link Claim#keepRenewed()} then returns each claim's lease.
     * Claims not {@code ACQUIRED}, already ended or already renewed are left as they are.
     *
     * @throws IllegalArgumentException if {@code claims} is null, or holds a null or a claim of
     *     another inbox
     */
    public void keepRenewed(List<Claim> claims) {
        List<Claim> batch = InboxArguments.requireNoNulls(claims, "claims");
        for (Claim claim : batch) {
            requireArgument(claim.claims() == this, "claim " + claim + " belongs to another inbox");
        }
        List<Held> group = new ArrayList<>(batch.size());
        long since = Long.MAX_VALUE;
        for (Claim claim : batch) {
            Lease held = new Lease(claim.id(), lease, claim.claimedAtNanos());
            if (claim.renewedIn(held)) {
                group.add(new Held(claim.key(), claim.owner(), held));
                since = Math.min(since, claim.claimedAtNanos());
            }
        }
        if (!group.isEmpty()) {
            new RenewedTogether(group).start(since);
        }
    }

    /** One claim of a group {@link #keepRenewed(List)} renews. */
    private record Held(InboxKey key, OwnerToken owner, Lease lease) {}

    /** The one renewal task of a group of claims, ended with the last of them. */
    private final class RenewedTogether {

        private final List<Held> group;
        private final java.util.concurrent.atomic.AtomicInteger open;
        private volatile java.util.concurrent.@Nullable Future<?> task;

        RenewedTogether(List<Held> group) {
            this.group = group;
            this.open = new java.util.concurrent.atomic.AtomicInteger(group.size());
        }

        void start(long since) {
            for (Held held : group) {
                held.lease().whenFinished(this::oneFinished);
            }
            long first = Math.max(0, since + renewEvery.toNanos() - System.nanoTime());
            Renewals.InHand inHand = new Renewals.InHand(since, maxInHand, () -> {
                if (open.get() > 0) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "the work of {0} claims of {1} has held them for more than {2} (maxInHand): they are no"
                                    + " longer renewed, and after their lease another delivery may take them over",
                            open.get(),
                            consumer,
                            maxInHand);
                    metrics.renewalsAbandoned(consumer);
                }
            });
            task = renewals.every(renewEvery, Duration.ofNanos(first), inHand, this::tick);
            if (open.get() == 0) {
                task.cancel(false); // every claim ended before the task was scheduled
            }
        }

        private void oneFinished() {
            java.util.concurrent.Future<?> scheduled = task;
            if (open.decrementAndGet() == 0 && scheduled != null) {
                scheduled.cancel(false);
            }
        }

        private void tick() {
            boolean any = false;
            for (Held held : group) {
                if (!held.lease().isFinished() && !held.lease().isLost()) {
                    any |= renewOnce(held.key(), held.owner(), held.lease());
                }
            }
            if (!any) {
                throw new CancellationException("every claim of the group ended");
            }
        }
    }

    /**
     * Reports a claim of this inbox's consumer that its store answered outside the inbox — inside a
     * transaction of the caller's, as {@code SpringInbox} makes one — the way the inbox reports its
     * own: the claim meter, and for a duplicate its redelivery lag, which feeds {@link
     * Inbox#retentionAdvice()}.
     *
     * @param took how long the store took to answer
     * @throws IllegalArgumentException if an argument is null
     */
    public void observeClaim(ClaimResult result, Duration took) {
        requireNonNull(result, "result");
        observe(result, requireNonNull(took, "took").toNanos());
    }

    /**
     * These claims with a lease of {@code lease} instead: the same store, consumer, retention,
     * attempts, metrics and retention advisor. For a consumer whose deliveries must not outlive a
     * deadline of their own — an SQS-triggered Lambda invocation bounds its claims by its remaining
     * time, so that a timed-out invocation does not hold its events past its end.
     *
     * @throws IllegalArgumentException if {@code lease} is null or not positive, or not longer than
     *     the renewal period the inbox was built with
     */
    public InboxClaims withLease(Duration lease) {
        requirePositive(lease, "lease");
        return new InboxClaims(
                store,
                consumer,
                retention,
                lease,
                claimAttempts,
                metrics,
                observer,
                renewals,
                renewEveryConfigured,
                maxInHand,
                advisor);
    }

    /** These claims for another consumer: its keys, its own retention advisor, every setting else the same. */
    InboxClaims withConsumer(String consumer) {
        return new InboxClaims(
                store,
                InboxKey.validate(consumer, "consumer"),
                retention,
                lease,
                claimAttempts,
                metrics,
                observer,
                renewals,
                renewEveryConfigured,
                maxInHand,
                new RetentionAdvisor(retention, lease));
    }

    /** The logical consumer whose keys these claims are scoped by. */
    public String consumer() {
        return consumer;
    }

    /** How long a claim is held before another delivery may take it over. */
    public Duration lease() {
        return lease;
    }

    /** The store these claims are made in. */
    public InboxStore store() {
        return store;
    }

    /** The request for {@code id}: this consumer's key, a fresh owner, this lease. */
    private ClaimRequest request(String id) {
        return ClaimRequest.of(InboxKey.of(consumer, id), OwnerToken.random(), lease);
    }

    /** One claim, retried with the same owner on a retryable failure; observed and counted. */
    ClaimResult claim(ClaimRequest request) {
        try (InboxObserver.Step step =
                observer.start("claim", consumer, request.key().id(), storeKind)) {
            ClaimResult result = retried("claim", step, e -> e, () -> {
                long start = System.nanoTime();
                ClaimResult answer = store.claim(request);
                observe(answer, System.nanoTime() - start);
                return answer;
            });
            step.outcome(InboxObserver.claimOutcome(result));
            return result;
        }
    }

    private List<Claim> claimAll(List<ClaimRequest> requests, InboxObserver.Step step) {
        return retried("claimAll", step, e -> e, () -> {
            long start = System.nanoTime();
            List<ClaimResult> results = store.claimAll(requests);
            long each = (System.nanoTime() - start) / requests.size();
            List<Claim> claims = new ArrayList<>(requests.size());
            for (int i = 0; i < requests.size(); i++) {
                ClaimRequest request = requests.get(i);
                observe(results.get(i), each);
                claims.add(new Claim(this, request.key(), request.owner(), results.get(i), start));
            }
            return claims;
        });
    }

    private List<Boolean> completeAll(List<HeldKey> held, InboxObserver.Step step) {
        List<Boolean> answers = retried(
                "completeAll",
                step,
                e -> new InboxStoreException(
                        "the work of " + held.size() + " events ran, but their completion could not be"
                                + " recorded; the claims stay held until their lease ends",
                        e,
                        e.isRetryable()),
                () -> store.completeAll(held, retention));
        for (Boolean answer : answers) {
            if (!answer) {
                metrics.leaseLost(consumer);
            }
        }
        return answers;
    }

    /**
     * {@code call}, tried again with the same arguments (the same owners: safe, since a claim whose
     * reply was lost is answered ACQUIRED again and a completion repeated is idempotent) while the
     * store fails with a retryable {@link InboxStoreException}, up to the inbox's claim attempts.
     * Each failure is counted under {@code operation}; the last is given to {@code step} and thrown
     * as {@code givenUp} makes it.
     */
    private <T> T retried(
            String operation,
            InboxObserver.Step step,
            java.util.function.Function<InboxStoreException, RuntimeException> givenUp,
            java.util.function.Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (InboxStoreException e) {
                metrics.storeError(consumer, operation, e);
                if (attempt >= claimAttempts || !e.isRetryable()) {
                    step.error(e);
                    throw givenUp.apply(e);
                }
            }
        }
    }

    /** Completes with retries, keeping {@code result} when not null; a lost lease is counted. */
    boolean completeClaim(InboxKey key, OwnerToken owner, byte @Nullable [] result) {
        try (InboxObserver.Step step = observer.start("complete", consumer, key.id(), storeKind)) {
            boolean completed;
            try {
                completed = retried(
                        "complete",
                        InboxObserver.Step.NONE, // the step sees what is thrown, below
                        e -> new CompletionFailedException(key, e),
                        () -> result == null
                                ? store.complete(key, owner, retention)
                                : store.complete(key, owner, retention, result));
            } catch (RuntimeException e) {
                step.error(e);
                throw e;
            }
            step.outcome(completed ? "completed" : "lease_lost");
            if (!completed) {
                metrics.leaseLost(consumer);
            }
            return completed;
        }
    }

    /** {@code result} if the store keeps results that long: {@link Claim#complete(byte[])}'s check before any I/O. */
    byte[] requireKeepable(byte @Nullable [] result) {
        return InboxArguments.requireResult(result, resultLimit(), store);
    }

    /** The store's {@code maxResultBytes()}, refused when it keeps none. */
    int resultLimit() {
        int limit = store.maxResultBytes();
        if (limit <= 0) {
            throw new UnsupportedOperationException(store + " keeps no results (maxResultBytes() is " + limit + ")");
        }
        return limit;
    }

    /** {@link Claim#release()}: the store's answer, its failure counted and thrown. */
    boolean releaseClaim(InboxKey key, OwnerToken owner) {
        try {
            return store.release(key, owner);
        } catch (InboxStoreException e) {
            metrics.storeError(consumer, "release", e);
            throw e;
        }
    }

    /** Releases after {@code failure}: a release that fails is suppressed into it (the lease ends by itself). */
    void release(InboxKey key, OwnerToken owner, Throwable failure) {
        try {
            store.release(key, owner);
        } catch (InboxStoreException e) {
            // The work's own failure is what the caller must see.
            metrics.storeError(consumer, "release", e);
            failure.addSuppressed(e);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** {@link Claim#renew()}: the store's answer, its failure counted and thrown. */
    boolean renewClaim(InboxKey key, OwnerToken owner) {
        try {
            return store.renew(key, owner, lease);
        } catch (InboxStoreException e) {
            metrics.storeError(consumer, "renew", e);
            throw e;
        }
    }

    /**
     * The lease of the claim {@code key} / {@code owner} made at {@code claimedAt}, renewed every
     * {@code renewEvery} from the claim (at once when that is already past) until {@link
     * Lease#finish()}, until the store refuses a renewal, or for at most {@code maxInHand}.
     */
    Lease renewing(InboxKey key, OwnerToken owner, long claimedAt) {
        Lease held = new Lease(key.id(), lease, claimedAt);
        long first = Math.max(0, claimedAt + renewEvery.toNanos() - System.nanoTime());
        Renewals.InHand inHand = new Renewals.InHand(claimedAt, maxInHand, () -> {
            if (held.isFinished()) {
                return; // it ended as its maximum passed: nothing was abandoned
            }
            // Work that never ends (a hung call, a future never completed) must not hold its event for ever.
            LOG.log(
                    System.Logger.Level.WARNING,
                    "the work of {0} has held it for more than {1} (maxInHand): its claim is no longer renewed,"
                            + " and after its lease another delivery may take the event over",
                    key,
                    maxInHand);
            metrics.renewalsAbandoned(consumer);
        });
        held.renewals(renewals.every(renewEvery, Duration.ofNanos(first), inHand, () -> renew(key, owner, held)));
        return held;
    }

    /** One renewal tick; a refusal ends the renewals (by throwing out of the scheduled task). */
    private void renew(InboxKey key, OwnerToken owner, Lease held) {
        if (!renewOnce(key, owner, held)) {
            throw new CancellationException(
                    held.isFinished() ? "the work ended" : "the lease of " + key + " was taken over");
        }
    }

    /**
     * Renews {@code held} once: false when its work ended or the store refused (then it is lost,
     * counted once); true while it is still to be renewed — a store that could not answer is tried
     * again at the next tick, the lease ending by itself meanwhile.
     */
    private boolean renewOnce(InboxKey key, OwnerToken owner, Lease held) {
        if (held.isFinished()) {
            return false;
        }
        long askedAt = System.nanoTime();
        boolean renewed;
        try {
            renewed = store.renew(key, owner, lease);
        } catch (InboxStoreException e) {
            metrics.storeError(consumer, "renew", e);
            return true;
        } catch (RuntimeException e) {
            // A store's bug, not an answer: thrown out of the task, it would end the renewals unseen.
            metrics.storeError(consumer, "renew", new InboxStoreException("renewing " + key + " failed", e, true));
            return true;
        }
        if (renewed) {
            held.renewed(askedAt);
            return true;
        }
        if (held.refused()) {
            metrics.leaseRenewalFailed(consumer);
        }
        return false;
    }

    /** Reports a claim's answer, and measures a duplicate's redelivery lag. */
    private void observe(ClaimResult result, long nanos) {
        if (!advisorPublished) {
            advisorPublished = true; // at its first claim: an inbox that never claims publishes no advice
            metrics.retentionAdvisor(consumer, advisor);
        }
        metrics.claimed(consumer, result, nanos);
        Duration lag = advisor.observe(result);
        if (lag != null) {
            metrics.duplicateLag(consumer, lag, result.pastRetention());
        }
    }

    // What the facade reads: the same settings, one place.

    Duration retention() {
        return retention;
    }

    InboxMetrics metrics() {
        return metrics;
    }

    InboxObserver observer() {
        return observer;
    }

    String storeKind() {
        return storeKind;
    }

    Duration maxInHand() {
        return maxInHand;
    }

    RetentionAdvisor advisor() {
        return advisor;
    }

    @Override
    public String toString() {
        return "InboxClaims[consumer=" + consumer + ", lease=" + lease + ", store=" + store + "]";
    }
}
