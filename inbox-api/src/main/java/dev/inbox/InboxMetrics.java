package dev.inbox;

import dev.inbox.spi.ClaimResult;
import java.time.Duration;

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

    /**
     * Work held its event longer than the inbox's {@code maxInHand} and its claim is no longer
     * renewed: a hung handler, most often; after the lease another delivery may take the event over.
     */
    default void renewalsAbandoned(String consumer) {}

    /**
     * A duplicate arrived {@code lag} after its event was completed, {@code pastRetention} after
     * the record's retention ended (negative within retention, zero or more for a late duplicate).
     * Called for each duplicate whose store reports its record's expiry (every store of this
     * project does).
     */
    default void duplicateLag(String consumer, Duration lag, Duration pastRetention) {}

    /**
     * The advisor of an inbox for {@code consumer}, once, at the inbox's first claim (an inbox that
     * never claims — the unscoped one beside scoped listener inboxes — has no advice to publish):
     * publish its {@link RetentionAdvisor#advice() advice} (for example as a gauge of the
     * recommended retention).
     */
    default void retentionAdvisor(String consumer, RetentionAdvisor advisor) {}

    /** A purge removed {@code removed} records. */
    default void purged(String consumer, long removed) {}

    /**
     * A broker adapter (the Kafka loop, the RabbitMQ consumer, the SQS loop, the Spring listener
     * adapters) handled one delivery for {@code consumer}, and it came to {@code outcome}. The
     * dead-lettered ones are the ones an operator must look at.
     */
    default void delivered(String consumer, DeliveryOutcome outcome) {}

    /**
     * An operator changed a record of {@code consumer} through {@link InboxOperations}: {@code
     * action} is {@code release-lease} or {@code forget}, and {@code changed} says whether a record
     * was deleted.
     */
    default void adminAction(String consumer, String action, boolean changed) {}
}
