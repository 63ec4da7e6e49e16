package dev.inbox;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * Deduplicates a consumer's deliveries: the first delivery of an event runs the handler, and every
 * later one — a broker's redelivery, a producer's re-send — is answered as a duplicate without
 * running it. In the lease mode of this class that holds while no crash falls between the work and
 * its record (see below); the transactional mode of {@code TransactionalInbox} has no such window.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder(store)
 *         .consumer("billing")
 *         .retention(Duration.ofHours(48))
 *         .lease(Duration.ofSeconds(30))
 *         .build();
 *
 * HandleResult result = inbox.handle(DedupKeys.eventId(message.id()), // the id the producer sends
 *         () -> ledger.post(message.body()));
 * if (result.shouldAcknowledge()) message.ack();
 * }</pre>
 *
 * <p>Each {@link #handle} call mints a fresh {@link OwnerToken} and claims the key:
 *
 * <ol>
 *   <li>{@code ACQUIRED}: the work runs. If it throws, the claim is released and the exception
 *       propagates (the broker redelivers); if it returns, the claim is completed and suppresses
 *       duplicates for the retention.
 *   <li>{@code DUPLICATE}: the work does not run; acknowledge the message.
 *   <li>{@code BUSY}: another delivery holds a live lease; the work does not run and the message
 *       must not be acknowledged.
 * </ol>
 *
 * <p>In this <em>lease mode</em> the store and the business data may live apart, and the guarantee
 * is that concurrent deliveries of one key never run its work side by side while it finishes within
 * its lease, and that a recorded key is not run again for the retention.
 * If a consumer dies after the work and before completing, the lease expires and a redelivery
 * applies the event again: at-least-once for that window. Where the business data shares a
 * database with the store, the transactional mode of {@code TransactionalInbox} (module {@code inbox-jdbc})
 * closes that window.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Inbox {

    private final InboxClaims claims;

    private Inbox(InboxClaims claims) {
        this.claims = claims;
    }

    /**
     * Starts configuring an inbox on {@code store}.
     *
     * @throws IllegalArgumentException if {@code store} is null
     */
    public static Builder builder(InboxStore store) {
        return new Builder(requireNonNull(store, "store"));
    }

    /**
     * Handles one delivery of event {@code id}: runs {@code work} unless the event was already
     * applied or is being applied by another delivery.
     *
     * @param id the event's dedup id (see {@link dev.inbox.keys.DedupKeys})
     * @param work the business write
     * @throws E what {@code work} threw, after the claim was released
     * @throws IllegalArgumentException if {@code id} is not a valid key or {@code work} is null
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     * @throws CompletionFailedException if the work ran but its completion could not be recorded;
     *     acknowledge the message
     */
    public <E extends Exception> HandleResult handle(String id, Work<E> work) throws E {
        return handle(id, null, work);
    }

    /**
     * Like {@link #handle(String, Work)}, with a payload fingerprint kept by the record: a later
     * duplicate whose fingerprint differs is reported ({@link HandleResult#isFingerprintMismatch()}
     * and a metric) because it means two different events share one dedup key.
     *
     * @param fingerprint for example {@code DedupKeys.sha256(payload)}, or null for none
     */
    public <E extends Exception> HandleResult handle(String id, @Nullable String fingerprint, Work<E> work) throws E {
        InboxKey key = InboxKey.of(claims.consumer(), id);
        requireNonNull(work, "work");
        return this.<Void, E>handleClaimed(key, fingerprint, null, 0, () -> {
                    work.run();
                    return null;
                })
                .handled();
    }

    /**
     * Like {@link #handle(String, Work)}, for request/reply consumers: the work's result is kept
     * with the completed record (encoded by {@code codec}), and a duplicate delivery is answered
     * with that stored result instead of running the work again.
     *
     * <pre>{@code
     * Reply<String> reply = inbox.handleReturning(request.id(), ResultCodec.utf8(),
     *         () -> payments.charge(request).confirmationNumber());
     * if (reply.shouldAcknowledge()) respond(request, reply.value()); // the same answer, every time
     * }</pre>
     *
     * <p>A result longer than the store keeps ({@link InboxStore#maxResultBytes()}) fails like the
     * work would: the claim is released and the {@link IllegalArgumentException} propagates.
     *
     * @param codec turns the result into bytes and back ({@link ResultCodec#utf8()}, {@link
     *     ResultCodec#bytes()} or your own)
     * @param work the business write, returning the result to keep (null keeps none)
     * @throws E what {@code work} threw, after the claim was released
     * @throws IllegalArgumentException if {@code id} is not a valid key, {@code codec} or {@code
     *     work} is null, or the encoded result is longer than the store keeps
     * @throws UnsupportedOperationException if the store keeps no results (before any I/O)
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     * @throws CompletionFailedException if the work ran but its completion could not be recorded;
     *     acknowledge the message
     */
    public <T, E extends Exception> Reply<T> handleReturning(String id, ResultCodec<T> codec, ResultWork<T, E> work)
            throws E {
        return handleReturning(id, null, codec, work);
    }

    /**
     * {@link #handleReturning(String, ResultCodec, ResultWork)} with a payload fingerprint, as in
     * {@link #handle(String, String, Work)}.
     *
     * @param fingerprint for example {@code DedupKeys.sha256(payload)}, or null for none
     */
    public <T, E extends Exception> Reply<T> handleReturning(
            String id, @Nullable String fingerprint, ResultCodec<T> codec, ResultWork<T, E> work) throws E {
        InboxKey key = InboxKey.of(claims.consumer(), id);
        requireNonNull(codec, "codec");
        requireNonNull(work, "work");
        return handleClaimed(key, fingerprint, codec, claims.resultLimit(), work);
    }

    /**
     * Claims {@code key} and runs {@code work} on ACQUIRED: released when it (or the encoding of
     * its result) fails, completed otherwise — keeping the encoded result when {@code codec} is not
     * null, within {@code limit} bytes. A duplicate's stored result is decoded when {@code codec}
     * is not null.
     */
    private <T, E extends Exception> Reply<T> handleClaimed(
            InboxKey key,
            @Nullable String fingerprint,
            @Nullable ResultCodec<T> codec,
            int limit,
            ResultWork<T, E> work)
            throws E {
        OwnerToken owner = OwnerToken.random();
        ClaimResult claim =
                claims.claim(ClaimRequest.of(key, owner, claims.lease()).withFingerprint(fingerprint));
        switch (claim.status()) {
            case DUPLICATE:
                byte[] stored = codec == null ? null : claim.storedResult();
                return new Reply<>(
                        new HandleResult(HandleOutcome.DUPLICATE, claim, false),
                        stored == null ? null : codec.decode(stored));
            case BUSY:
                return new Reply<>(new HandleResult(HandleOutcome.BUSY, claim, false), null);
            default:
                break;
        }
        T value;
        byte @Nullable [] result;
        try (InboxObserver.Step step = startWork(key)) {
            try {
                value = work.run();
                result = value == null || codec == null ? null : codec.encode(value);
                if (result != null) {
                    InboxArguments.requireResult(result, limit, claims.store());
                }
                step.outcome("done");
            } catch (Throwable failure) {
                step.outcome("failed");
                step.error(failure);
                claims.release(key, owner, failure);
                throw Inbox.<E>rethrow(failure);
            }
        }
        boolean completed = claims.completeClaim(key, owner, result);
        return new Reply<>(new HandleResult(HandleOutcome.PROCESSED, claim, !completed), value);
    }

    /**
     * Like {@link #handle(String, Work)}, for work that may run longer than the lease: while it
     * runs, its claim is renewed every {@link Builder#renewEvery(Duration) renewEvery} (a third of
     * the lease by default) on a scheduler shared by all inboxes ({@link
     * Builder#renewals(ScheduledExecutorService)}), and the renewals stop when it ends. The work
     * receives the {@link Lease}: check {@link Lease#isHeld()} before a side effect that must not
     * happen twice.
     *
     * <p>A renewal the store refuses (another delivery took the event over after a stall longer
     * than the lease) is counted ({@link InboxMetrics#leaseRenewalFailed}), the lease is no longer
     * held, and the result reports {@link HandleResult#leaseLost()}. A renewal the store cannot
     * answer is counted as a store error and tried again at the next tick.
     *
     * @throws E what {@code work} threw, after the claim was released
     * @throws IllegalArgumentException if {@code id} is not a valid key or {@code work} is null
     * @throws InboxStoreException if the store could not answer; do not acknowledge the message
     * @throws CompletionFailedException if the work ran but its completion could not be recorded;
     *     acknowledge the message
     */
    public <E extends Exception> HandleResult handleRenewing(String id, LeasedWork<E> work) throws E {
        InboxKey key = InboxKey.of(claims.consumer(), id);
        requireNonNull(work, "work");
        OwnerToken owner = OwnerToken.random();
        long claimedAt = System.nanoTime();
        ClaimResult claim = claims.claim(ClaimRequest.of(key, owner, claims.lease()));
        switch (claim.status()) {
            case DUPLICATE:
                return new HandleResult(HandleOutcome.DUPLICATE, claim, false);
            case BUSY:
                return new HandleResult(HandleOutcome.BUSY, claim, false);
            default:
                break;
        }
        Lease held = claims.renewing(key, owner, claimedAt);
        try (InboxObserver.Step step = startWork(key)) {
            try {
                work.run(held);
                step.outcome("done");
            } catch (Throwable failure) {
                step.outcome("failed");
                step.error(failure);
                held.finish();
                claims.release(key, owner, failure);
                throw Inbox.<E>rethrow(failure);
            }
        }
        held.finish();
        boolean completed = claims.completeClaim(key, owner, null);
        return new HandleResult(HandleOutcome.PROCESSED, claim, !completed || held.isLost());
    }

    /** The tracing step of one event's work. */
    private InboxObserver.Step startWork(InboxKey key) {
        return claims.observer().start("work", claims.consumer(), key.id(), claims.storeKind());
    }

    /**
     * This inbox's claim API, for adapters and frameworks that run the work themselves between two
     * callbacks or over a whole poll: {@link InboxClaims#claim}, {@link InboxClaims#claimAll}, {@link
     * InboxClaims#completeAll}. Claims made there are retried, counted and observed as {@link
     * #handle} does.
     */
    public InboxClaims claims() {
        return claims;
    }

    /**
     * Moved to {@link InboxClaims#claim(String)}: {@code inbox.claims().claim(id)}.
     *
     * @deprecated the claim API is {@link #claims()}; this delegate goes before the first release
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Claim claim(String id) {
        return claims.claim(id);
    }

    /**
     * Moved to {@link InboxClaims#claim(String, String)}: {@code inbox.claims().claim(id, fingerprint)}.
     *
     * @deprecated the claim API is {@link #claims()}; this delegate goes before the first release
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public Claim claim(String id, @Nullable String fingerprint) {
        return claims.claim(id, fingerprint);
    }

    /**
     * Moved to {@link InboxClaims#claimAll(List)}: {@code inbox.claims().claimAll(ids)}.
     *
     * @deprecated the claim API is {@link #claims()}; this delegate goes before the first release
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public List<Claim> claimAll(List<String> ids) {
        return claims.claimAll(ids);
    }

    /**
     * Handles a batch of items — a poll of 500 messages — in a constant number of round trips: one
     * {@link InboxClaims#claimAll} for all of them, the work for each item whose event is new, in
     * order, then one {@link InboxClaims#completeAll} for those whose work returned. An item whose work throws fails
     * alone: its claim is released and its result carries the exception. Nothing acquired is left
     * without completion or release, also when the work throws an {@link Error} (which propagates
     * after the claims not yet completed are released).
     *
     * @param items the batch, in delivery order
     * @param idOf the dedup id of an item (see {@link dev.inbox.keys.DedupKeys})
     * @param work the business write of one item
     * @return one result per item, in the same order
     * @throws IllegalArgumentException if an argument is null or an id is not a valid key (before
     *     any I/O)
     * @throws InboxStoreException if the store could not claim the batch (nothing ran), or could
     *     not record the completions (the work ran; the claims end with their lease)
     */
    public <T> List<ItemResult<T>> handleAll(
            List<? extends T> items, java.util.function.Function<? super T, String> idOf, ItemWork<? super T> work) {
        requireNonNull(items, "items");
        requireNonNull(idOf, "idOf");
        requireNonNull(work, "work");
        List<String> ids = new ArrayList<>(items.size());
        for (T item : items) {
            ids.add(idOf.apply(item)); // claimAll checks every id before any I/O
        }
        List<Claim> claims = this.claims.claimAll(ids);
        List<Claim> done = new ArrayList<>(claims.size());
        List<ItemResult<T>> results = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            T item = items.get(i);
            Claim claim = claims.get(i);
            if (!claim.isAcquired()) {
                HandleOutcome outcome =
                        claim.status() == ClaimStatus.DUPLICATE ? HandleOutcome.DUPLICATE : HandleOutcome.BUSY;
                results.add(new ItemResult<>(item, new HandleResult(outcome, claim.result(), false), null));
                continue;
            }
            try {
                work.run(item);
                done.add(claim);
                results.add(null); // filled in once completed
            } catch (Exception failure) {
                this.claims.release(claim.key(), claim.owner(), failure);
                results.add(new ItemResult<>(item, null, failure));
            } catch (Error error) {
                for (Claim held : done) {
                    this.claims.release(held.key(), held.owner(), error);
                }
                for (int j = i; j < claims.size(); j++) {
                    if (claims.get(j).isAcquired()) {
                        this.claims.release(claims.get(j).key(), claims.get(j).owner(), error);
                    }
                }
                throw error;
            }
        }
        List<Boolean> completed = this.claims.completeAll(done);
        int next = 0;
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) == null) {
                boolean recorded = completed.get(next++);
                results.set(
                        i,
                        new ItemResult<>(
                                items.get(i),
                                new HandleResult(
                                        HandleOutcome.PROCESSED, claims.get(i).result(), !recorded),
                                null));
            }
        }
        return results;
    }

    /**
     * Moved to {@link InboxClaims#completeAll(List)}: {@code inbox.claims().completeAll(claims)}.
     *
     * @deprecated the claim API is {@link #claims()}; this delegate goes before the first release
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public List<Boolean> completeAll(List<Claim> claims) {
        return this.claims.completeAll(claims);
    }

    /**
     * Removes expired records from the store (see {@link InboxStore#purge()}); schedule it, for
     * example every few minutes, on one instance or on all of them.
     *
     * @return how many records were removed
     */
    public long purge() {
        InboxMetrics metrics = claims.metrics();
        String consumer = claims.consumer();
        try (InboxObserver.Step step = claims.observer().start("purge", consumer, null, claims.storeKind())) {
            try {
                long removed = claims.store().purge();
                metrics.purged(consumer, removed);
                step.outcome(removed == 0 ? "none" : "removed");
                return removed;
            } catch (InboxStoreException e) {
                step.error(e);
                metrics.storeError(consumer, "purge", e);
                throw e;
            }
        }
    }

    /**
     * This inbox for another logical consumer: the same store, retention, lease, attempts and
     * metrics, with keys scoped to {@code consumer}. For a framework that gives each of an
     * application's listeners a consumer of its own.
     *
     * @throws IllegalArgumentException if {@code consumer} is not a valid key part
     */
    public Inbox withConsumer(String consumer) {
        return new Inbox(claims.withConsumer(consumer));
    }

    /**
     * This inbox with claims that hold for {@code lease} instead: the same store, consumer,
     * retention, attempts, metrics and retention advisor (see {@link InboxClaims#withLease}).
     *
     * @throws IllegalArgumentException if {@code lease} is null or not positive, or not longer than
     *     the renewal period this inbox was built with
     */
    public Inbox withLease(Duration lease) {
        return new Inbox(claims.withLease(lease));
    }

    /** The store this inbox claims in. */
    public InboxStore store() {
        return claims.store();
    }

    /** What observes this inbox's steps for tracing ({@link Builder#observer(InboxObserver)}). */
    public InboxObserver observer() {
        return claims.observer();
    }

    /** Where this inbox reports claims, errors, late duplicates and purges. */
    public InboxMetrics metrics() {
        return claims.metrics();
    }

    /** The logical consumer whose keys this inbox scopes. */
    public String consumer() {
        return claims.consumer();
    }

    /** How long a completed event suppresses duplicates. */
    public Duration retention() {
        return claims.retention();
    }

    /** How long a claim is held before another delivery may take it over. */
    public Duration lease() {
        return claims.lease();
    }

    /** {@link Builder#maxInHand}'s default: an hour, or ten leases when that is longer. */
    private static Duration defaultMaxInHand(Duration lease) {
        Duration tenLeases = lease.multipliedBy(10);
        return tenLeases.compareTo(Duration.ofHours(1)) > 0 ? tenLeases : Duration.ofHours(1);
    }

    /** How long work may hold its event before its claim is no longer renewed ({@link Builder#maxInHand}). */
    public Duration maxInHand() {
        return claims.maxInHand();
    }

    /**
     * Moved to {@link InboxClaims#observeClaim}: {@code inbox.claims().observeClaim(result, took)}.
     *
     * @deprecated the claim API is {@link #claims()}; this delegate goes before the first release
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public void observeClaim(ClaimResult result, Duration took) {
        claims.observeClaim(result, took);
    }

    /**
     * The redelivery lag this inbox has measured from the duplicates it met, and the retention it
     * recommends: the longest lag + the lease + a quarter of both (see {@link RetentionAdvisor}).
     * Check it after a deploy, a rebalance storm or an outage; {@link RetentionAdvice#isUndersized()}
     * says the configured retention let (or nearly let) a duplicate through.
     */
    public RetentionAdvice retentionAdvice() {
        return claims.advisor().advice();
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> RuntimeException rethrow(Throwable failure) throws E {
        if (failure instanceof Error error) {
            throw error; // (E) erases to a cast to Exception, which would turn an Error into a ClassCastException
        }
        throw (E) failure;
    }

    @Override
    public String toString() {
        return "Inbox[consumer=" + consumer() + ", retention=" + retention() + ", lease=" + lease() + ", store="
                + store() + "]";
    }

    /** Configures an {@link Inbox}; each setter checks its argument at once. */
    public static final class Builder {

        private final InboxStore store;
        private @Nullable String consumer;
        private Duration retention = Duration.ofHours(48);
        private Duration lease = Duration.ofMinutes(1);
        private int claimAttempts = 2;
        private InboxMetrics metrics = InboxMetrics.NONE;
        private InboxObserver observer = InboxObserver.NONE;
        private @Nullable ScheduledExecutorService renewals;
        private @Nullable Duration renewEvery;
        private @Nullable Duration maxInHand;

        private Builder(InboxStore store) {
            this.store = store;
        }

        /**
         * The logical consumer (consumer group, service name); required.
         *
         * @throws IllegalArgumentException if it is not a valid key part (see {@link InboxKey})
         */
        public Builder consumer(String consumer) {
            this.consumer = InboxKey.validate(consumer, "consumer");
            return this;
        }

        /**
         * How long a completed event suppresses duplicates: the longest redelivery delay, plus p99
         * processing time, plus a margin. Default 48 hours.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder retention(Duration retention) {
            this.retention = requirePositive(retention, "retention");
            return this;
        }

        /**
         * How long a claim is held before another delivery may take it over; longer than the
         * slowest processing. Default 1 minute.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder lease(Duration lease) {
            this.lease = requirePositive(lease, "lease");
            return this;
        }

        /**
         * How many times a claim or a completion is tried when the store fails with a retryable
         * {@link InboxStoreException}; retries keep the same owner, so they are safe. Default 2.
         *
         * @throws IllegalArgumentException if below 1
         */
        public Builder claimAttempts(int claimAttempts) {
            requireArgument(claimAttempts >= 1, "claimAttempts must be at least 1 but was " + claimAttempts);
            this.claimAttempts = claimAttempts;
            return this;
        }

        /**
         * Where to report claims, errors, late duplicates and purges. Default: nowhere.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder metrics(InboxMetrics metrics) {
            this.metrics = requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Observes the claim, the work and the completion of each event, and each purge, for
         * tracing (default: nothing); {@code ObservationInboxObserver.of(observationRegistry)} in
         * {@code inbox-micrometer} makes Micrometer observations of them.
         *
         * @throws IllegalArgumentException if {@code observer} is null
         */
        public Builder observer(InboxObserver observer) {
            this.observer = requireNonNull(observer, "observer");
            return this;
        }

        /**
         * How often {@link Inbox#handleRenewing} renews a running work's claim; shorter than the
         * lease (checked by {@link #build()}). Default a third of the lease.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder renewEvery(Duration renewEvery) {
            this.renewEvery = requirePositive(renewEvery, "renewEvery");
            return this;
        }

        /**
         * How long work may hold its event at most: past it, its claim is no longer renewed (logged,
         * and counted by {@link InboxMetrics#renewalsAbandoned}), so work that never ends — a hung
         * call, a future that never completes — does not keep every other delivery of the event
         * waiting for ever; after its lease another delivery takes the event over. Default 1 hour,
         * or ten leases when that is longer; set it above the longest work you run.
         *
         * @throws IllegalArgumentException if null or not longer than the lease
         */
        public Builder maxInHand(Duration maxInHand) {
            requirePositive(maxInHand, "maxInHand");
            this.maxInHand = maxInHand;
            return this;
        }

        /**
         * The scheduler {@link Inbox#handleRenewing} renews claims on. Default {@link
         * Renewals#shared()}: four daemon threads shared by every inbox and adapter of the JVM; a
         * renewal is one short store call, and one that hangs holds back no other claim's renewals
         * while fewer than four hang at once.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder renewals(ScheduledExecutorService renewals) {
            this.renewals = requireNonNull(renewals, "renewals");
            return this;
        }

        /**
         * Builds the inbox.
         *
         * @throws IllegalStateException if no consumer was set
         * @throws IllegalArgumentException if {@link #renewEvery(Duration)} is not shorter than the lease,
         *     or {@link #maxInHand(Duration)} not longer
         */
        public Inbox build() {
            if (consumer == null) {
                throw new IllegalStateException("consumer(...) must be set before build()");
            }
            requireArgument(
                    maxInHand == null || maxInHand.compareTo(lease) > 0,
                    "maxInHand must be longer than the lease (" + lease + ") but was " + maxInHand);
            Duration held = maxInHand != null ? maxInHand : defaultMaxInHand(lease);
            return new Inbox(new InboxClaims(
                    store,
                    consumer,
                    retention,
                    lease,
                    claimAttempts,
                    metrics,
                    observer,
                    renewals != null ? Renewals.on(renewals) : Renewals.shared(),
                    renewEvery,
                    held,
                    new RetentionAdvisor(retention, lease)));
        }
    }
}
