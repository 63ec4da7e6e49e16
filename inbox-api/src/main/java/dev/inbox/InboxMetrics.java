package dev.inbox;

import dev.inbox.spi.ClaimResult;

/**
 * Receives what an {@link Inbox} observes, named after the signals an operator alerts on:
 * duplicate hit rate, store error rate, late duplicates, claim latency and purge counts.
 *
 * <p>Every method has an empty default, so an implementation overrides only what it records.
 * {@code MicrometerInboxMetrics}, in the {@code inbox-micrometer} module, publishes them to a Micrometer registry.
 * Implementations must be thread-safe and must not throw.
 */
public interface InboxMetrics {

    /** Records nothing. */
    InboxMetrics NONE = new InboxMetrics() {};

    /** A claim was answered with {@code result} after {@code nanos}. */
    default void claimed(String consumer, ClaimResult result, long nanos) {}

    /**
     * A store operation ({@code claim}, {@code complete}, {@code release}, {@code purge}) failed.
     */
    default void storeError(String consumer, String operation, InboxStoreException error) {}

    /** Work finished after its lease had been taken over: the event may be applied twice. */
    default void leaseLost(String consumer) {}

    /**
     * The store refused to renew the lease of running work ({@link Inbox#handleRenewing}): another
     * delivery took the event over, and may apply it too.
     */
    default void leaseRenewalFailed(String consumer) {}

    /** A purge removed {@code removed} records. */
    default void purged(String consumer, long removed) {}
}
