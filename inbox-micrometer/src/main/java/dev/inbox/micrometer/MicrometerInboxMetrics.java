package dev.inbox.micrometer;

import dev.inbox.DeliveryOutcome;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxStoreException;
import dev.inbox.RetentionAdvice;
import dev.inbox.RetentionAdvisor;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxArguments;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link InboxMetrics} on a Micrometer {@link MeterRegistry}. Every meter is tagged with {@code
 * consumer}:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>tags</th><th>what to alert on</th></tr>
 *   <tr><td>{@code inbox.claims}</td><td>counter</td><td>{@code outcome}=acquired|duplicate|busy</td>
 *       <td>duplicate hit rate above 5× its baseline over 5 minutes: a redelivery storm</td></tr>
 *   <tr><td>{@code inbox.claim.latency}</td><td>timer</td><td></td><td>p99 of the store's claim</td></tr>
 *   <tr><td>{@code inbox.store.errors}</td><td>counter</td><td>{@code operation}</td>
 *       <td>more than 1% of claims over 60 seconds</td></tr>
 *   <tr><td>{@code inbox.late.duplicate.detected}</td><td>counter</td><td></td>
 *       <td>any: the retention is shorter than the real redelivery delay</td></tr>
 *   <tr><td>{@code inbox.late.duplicate.delay}</td><td>timer</td><td></td>
 *       <td>its max: how far past the retention late duplicates arrive (raise the retention by more)</td></tr>
 *   <tr><td>{@code inbox.redelivery.lag}</td><td>timer</td><td></td>
 *       <td>time from an event's completion to a duplicate of it: the real redelivery delay</td></tr>
 *   <tr><td>{@code inbox.retention.recommended}</td><td>gauge (seconds)</td><td></td>
 *       <td>above {@code inbox.retention.configured}: the retention is too short (see {@code
 *       RetentionAdvisor}); the configured retention until a duplicate was measured; both from the
 *       consumer's first claim</td></tr>
 *   <tr><td>{@code inbox.retention.configured}</td><td>gauge (seconds)</td><td></td><td></td></tr>
 *   <tr><td>{@code inbox.fingerprint.mismatch}</td><td>counter</td><td></td>
 *       <td>any: two different payloads share a dedup key</td></tr>
 *   <tr><td>{@code inbox.lease.takeovers}</td><td>counter</td><td></td>
 *       <td>a rise: consumers die mid-processing or leases are too short</td></tr>
 *   <tr><td>{@code inbox.lease.lost}</td><td>counter</td><td></td>
 *       <td>any: work outlived its lease and may have been applied twice</td></tr>
 *   <tr><td>{@code inbox.purge.removed}</td><td>counter</td><td></td><td>a purge that stops removing</td></tr>
 *   <tr><td>{@code inbox.admin.actions}</td><td>counter</td><td>{@code action}=release-lease|forget,
 *       {@code changed}=true|false</td><td>any: an operator overrode the claims (see {@code
 *       InboxOperations})</td></tr>
 * </table>
 *
 * <p>In Prometheus these appear as {@code inbox_claims_total}, {@code
 * inbox_late_duplicate_detected_total} and so on.
 */
public final class MicrometerInboxMetrics implements InboxMetrics {

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Meters> byConsumer = new ConcurrentHashMap<>();

    private MicrometerInboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Metrics published to {@code registry}.
     *
     * @throws IllegalArgumentException if {@code registry} is null
     */
    public static MicrometerInboxMetrics of(MeterRegistry registry) {
        return new MicrometerInboxMetrics(InboxArguments.requireNonNull(registry, "registry"));
    }

    @Override
    public void claimed(String consumer, ClaimResult result, long nanos) {
        Meters meters = meters(consumer);
        meters.latency.record(nanos, TimeUnit.NANOSECONDS);
        switch (result.status()) {
            case ACQUIRED:
                meters.acquired.increment();
                if (result.isTakeover()) {
                    meters.takeovers.increment();
                }
                break;
            case DUPLICATE:
                meters.duplicate.increment();
                if (result.isLate()) {
                    meters.late.increment();
                }
                if (result.fingerprint() == FingerprintCheck.MISMATCH) {
                    meters.mismatch.increment();
                }
                break;
            default:
                meters.busy.increment();
        }
    }

    @Override
    public void storeError(String consumer, String operation, InboxStoreException error) {
        Counter.builder("inbox.store.errors")
                .description("Store operations that failed")
                .tag("consumer", consumer)
                .tag("operation", operation.toLowerCase(Locale.ROOT))
                .register(registry)
                .increment();
    }

    @Override
    public void duplicateLag(String consumer, Duration lag, Duration pastRetention) {
        Meters meters = meters(consumer);
        meters.lag.record(lag);
        if (!pastRetention.isNegative()) {
            meters.lateDelay.record(pastRetention);
        }
    }

    /**
     * Publishes the advisor's recommended retention and the configured one, from the inbox's first
     * claim. Until a duplicate's lag was measured the recommendation is the configured retention
     * (nothing measured calls for another), never NaN. With several inboxes for one consumer, the
     * first one's advisor is published.
     */
    @Override
    public void retentionAdvisor(String consumer, RetentionAdvisor advisor) {
        Gauge.builder("inbox.retention.recommended", advisor, a -> {
                    RetentionAdvice advice = a.advice();
                    Duration recommended = advice.recommended();
                    return (recommended == null ? advice.configured() : recommended).toMillis() / 1000.0;
                })
                .description("The retention the measured redelivery lag recommends")
                .baseUnit("seconds")
                .tag("consumer", consumer)
                .strongReference(true)
                .register(registry);
        Gauge.builder(
                        "inbox.retention.configured",
                        advisor,
                        a -> a.advice().configured().toMillis() / 1000.0)
                .description("The retention records are completed with")
                .baseUnit("seconds")
                .tag("consumer", consumer)
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void leaseLost(String consumer) {
        meters(consumer).leaseLost.increment();
    }

    @Override
    public void leaseRenewalFailed(String consumer) {
        meters(consumer).renewalFailed.increment();
    }

    @Override
    public void renewalsAbandoned(String consumer) {
        meters(consumer).abandoned.increment();
    }

    @Override
    public void purged(String consumer, long removed) {
        meters(consumer).purged.increment(removed);
    }

    /**
     * Counts the delivery in {@code inbox.deliveries}. The first delivery of a consumer registers
     * the counter of every outcome, so that a rule on one (dead-lettered) sees it rise from zero.
     */
    @Override
    public void delivered(String consumer, DeliveryOutcome outcome) {
        meters(consumer).deliveries(registry, consumer).get(outcome).increment();
    }

    /** Counts the operator's action in {@code inbox.admin.actions}. */
    @Override
    public void adminAction(String consumer, String action, boolean changed) {
        Counter.builder("inbox.admin.actions")
                .description("Leases released and records forgotten by an operator")
                .tag("consumer", consumer)
                .tag("action", action)
                .tag("changed", Boolean.toString(changed))
                .register(registry)
                .increment();
    }

    private Meters meters(String consumer) {
        return byConsumer.computeIfAbsent(consumer, c -> new Meters(registry, c));
    }

    /** The meters of one consumer, looked up once. */
    private static final class Meters {
        final Counter acquired;
        final Counter duplicate;
        final Counter busy;
        final Counter late;
        final Counter mismatch;
        final Counter takeovers;
        final Counter leaseLost;
        final Counter renewalFailed;
        final Counter abandoned;
        final Counter purged;
        final Timer latency;
        final Timer lag;
        final Timer lateDelay;

        Meters(MeterRegistry registry, String consumer) {
            acquired = claims(registry, consumer, "acquired");
            duplicate = claims(registry, consumer, "duplicate");
            busy = claims(registry, consumer, "busy");
            late = counter(registry, consumer, "inbox.late.duplicate.detected", "Duplicates found past retention");
            mismatch = counter(registry, consumer, "inbox.fingerprint.mismatch", "Duplicates with another payload");
            takeovers = counter(registry, consumer, "inbox.lease.takeovers", "Expired leases taken over");
            leaseLost = counter(registry, consumer, "inbox.lease.lost", "Work that finished after losing its lease");
            renewalFailed = counter(
                    registry, consumer, "inbox.lease.renewal.failed", "Renewals refused: the event was taken over");
            abandoned = counter(
                    registry,
                    consumer,
                    "inbox.lease.abandoned",
                    "Work held its event past maxInHand: no longer renewed");
            purged = counter(registry, consumer, "inbox.purge.removed", "Expired records removed by purge");
            latency = Timer.builder("inbox.claim.latency")
                    .description("Time the store took to answer a claim")
                    .tag("consumer", consumer)
                    .publishPercentiles(0.5, 0.99, 0.999)
                    .register(registry);
            lag = Timer.builder("inbox.redelivery.lag")
                    .description("Time from an event's completion to a duplicate of it")
                    .tag("consumer", consumer)
                    .publishPercentiles(0.5, 0.99)
                    .register(registry);
            lateDelay = Timer.builder("inbox.late.duplicate.delay")
                    .description("How long after the retention ended late duplicates arrived")
                    .tag("consumer", consumer)
                    .register(registry);
        }

        private volatile @Nullable Map<DeliveryOutcome, Counter> deliveries;

        Map<DeliveryOutcome, Counter> deliveries(MeterRegistry registry, String consumer) {
            Map<DeliveryOutcome, Counter> counters = deliveries;
            if (counters == null) {
                synchronized (this) {
                    counters = deliveries;
                    if (counters == null) {
                        counters = new EnumMap<>(DeliveryOutcome.class);
                        for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
                            counters.put(
                                    outcome,
                                    Counter.builder("inbox.deliveries")
                                            .description("Deliveries a broker adapter handled, by outcome")
                                            .tag("consumer", consumer)
                                            .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                                            .register(registry));
                        }
                        deliveries = counters;
                    }
                }
            }
            return counters;
        }

        private static Counter claims(MeterRegistry registry, String consumer, String outcome) {
            return Counter.builder("inbox.claims")
                    .description("Claims by outcome")
                    .tag("consumer", consumer)
                    .tag("outcome", outcome)
                    .register(registry);
        }

        private static Counter counter(MeterRegistry registry, String consumer, String name, String description) {
            return Counter.builder(name)
                    .description(description)
                    .tag("consumer", consumer)
                    .register(registry);
        }
    }
}
