package dev.inbox.benchmarks.storm;

import dev.inbox.InboxMetrics;
import dev.inbox.RetentionAdvice;
import dev.inbox.RetentionAdvisor;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimResult;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * One redelivery storm. A simulated broker holds every delivery in a delay queue; consumer threads
 * take them and hand them to a {@link StormTarget}, then acknowledge them or give them back for
 * redelivery (BUSY, work that threw, a consumer that crashed). The target's ledger says at the end
 * how many times each event's effect was applied.
 */
final class Storm {

    private static final String TOPIC = "storm-events";
    private static final Duration DEADLINE = Duration.ofMinutes(30);

    private final StormConfig config;
    private final DelayQueue<Delivery> broker = new DelayQueue<>();
    private final AtomicLong outstanding = new AtomicLong();
    private final Counters counters = new Counters();
    /** Per event: how many of its deliveries applied it without the store recording it (see {@link Outcome}). */
    private final AtomicIntegerArray causes;

    private final AtomicIntegerArray attempts;

    private final Recorder latencies = new Recorder(3); // fixed memory, safe from every thread
    private final Samples samples = new Samples();
    private volatile boolean fedAll;
    private final InboxMetrics metrics = new InboxMetrics() {
        @Override
        public void claimed(String consumer, ClaimResult result, long nanos) {
            latencies.recordValue(Math.max(0, nanos));
            if (result.isTakeover()) {
                counters.takeovers.increment();
            }
            if (result.isLate()) {
                counters.lateDuplicates.increment();
            }
        }

        @Override
        public void leaseLost(String consumer) {
            counters.leaseLost.increment();
        }

        @Override
        public void retentionAdvisor(String consumer, RetentionAdvisor advisor) {
            advisors.add(advisor);
        }
    };
    /** The advisors of the targets' inboxes: the measured redelivery lag and the retention it recommends. */
    private final List<RetentionAdvisor> advisors = new CopyOnWriteArrayList<>();

    Storm(StormConfig config) {
        this.config = config;
        this.causes = new AtomicIntegerArray(config.events());
        this.attempts = new AtomicIntegerArray(config.events());
    }

    /** The metrics a target must report its claims to. */
    InboxMetrics metrics() {
        return metrics;
    }

    /** What happened so far, for a storm driven through a real broker ({@link BrokerStorm}). */
    Counters counters() {
        return counters;
    }

    /** Records that one of {@code event}'s deliveries applied it without the store recording it. */
    void cause(int event) {
        causes.incrementAndGet(event);
    }

    /** The report of a run that took {@code elapsedNanos}, from the target's ledger. */
    StormReport report(StormTarget target, long elapsedNanos, boolean finished) throws Exception {
        return StormReport.of(
                config,
                target,
                counters,
                ledger(target),
                causes(),
                latencies.getIntervalHistogram(),
                samples,
                retentionAdvice(),
                elapsedNanos,
                finished);
    }

    /**
     * The advice of the inbox that measured the longest redelivery lag (every inbox of a storm has
     * the same retention and lease), or null when no target built one.
     */
    private @Nullable RetentionAdvice retentionAdvice() {
        RetentionAdvice longest = null;
        for (RetentionAdvisor advisor : advisors) {
            RetentionAdvice advice = advisor.advice();
            if (longest == null || advice.longestLag().compareTo(longest.longestLag()) > 0) {
                longest = advice;
            }
        }
        return longest;
    }

    /** Runs the storm against {@code target} and reports; {@code progress} hears every 2 seconds. */
    StormReport run(StormTarget target, Consumer<String> progress) throws Exception {
        Random plan = new Random(config.seed());
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(config.consumers() + 1);
        ScheduledExecutorService background = Executors.newScheduledThreadPool(1, daemon("storm-background"));
        List<Future<?>> workers = new ArrayList<>();
        if (config.eventRate() == 0) {
            feed(plan, start); // every delivery queued up front, first copies due at once
        } else {
            workers.add(pool.submit(() -> feed(plan, start)));
        }
        for (int c = 0; c < config.consumers(); c++) {
            workers.add(pool.submit(() -> consume(target)));
        }
        if (!config.purgeInterval().isZero()) {
            long every = config.purgeInterval().toMillis();
            background.scheduleWithFixedDelay(() -> purge(target), every, every, TimeUnit.MILLISECONDS);
        }
        long deadline = start + DEADLINE.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        long nextSample = System.nanoTime();
        boolean finished = true;
        try {
            while (!fedAll || outstanding.get() > 0) {
                Thread.sleep(50);
                for (Future<?> worker : workers) {
                    if (worker.isDone()) {
                        worker.get(); // a consumer or the feeder died: surface why
                    }
                }
                long now = System.nanoTime();
                if (!config.heapInterval().isZero() && now - nextSample >= 0) {
                    samples.take(target);
                    nextSample = now + config.heapInterval().toNanos();
                }
                if (now - nextProgress >= 0) {
                    progress.accept(String.format(
                            Locale.ROOT,
                            "storm: %,d of %,d deliveries outstanding, %,d processed, %.0f s%s",
                            outstanding.get(),
                            counters.deliveries.sum(),
                            counters.processed.sum(),
                            (now - start) / 1e9,
                            samples.latest()));
                    nextProgress = now + TimeUnit.SECONDS.toNanos(2);
                }
                if (now - deadline >= 0) {
                    finished = false;
                    break;
                }
            }
        } finally {
            background.shutdownNow();
            pool.shutdownNow();
            background.awaitTermination(30, TimeUnit.SECONDS);
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (!config.heapInterval().isZero()) {
            samples.take(target);
        }
        return report(target, System.nanoTime() - start, finished);
    }

    /**
     * Reads the ledger, retrying for a while: a store that failed transiently at the end of the run
     * (a dropped connection) must not cost the run its verdict.
     */
    private int[] causes() {
        int[] copy = new int[causes.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = causes.get(i);
        }
        return copy;
    }

    private int[] ledger(StormTarget target) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return target.appliedCounts(config.events());
            } catch (RuntimeException | java.sql.SQLException e) {
                if (attempt == 40) {
                    throw e;
                }
                Thread.sleep(250);
            }
        }
    }

    /**
     * Queues every event's deliveries: each event 1 + d times, the first due when the event is
     * released, redeliveries racing with it or coming later, in any order. With an event rate,
     * events are released on that schedule, a little ahead of time, so the queue stays short.
     */
    private Void feed(Random plan, long start) throws InterruptedException {
        for (int event = 0; event < config.events(); event++) {
            long release = config.eventRate() == 0 ? start : start + (long) (event * 1e9 / config.eventRate());
            long early = release - System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(100);
            if (early > 0) {
                TimeUnit.NANOSECONDS.sleep(early);
            }
            int copies = 1 + plan.nextInt(config.maxRedeliveries() + 1);
            for (int copy = 0; copy < copies; copy++) {
                long delay = copy == 0
                        ? 0
                        : (long)
                                (plan.nextDouble() * config.maxRedeliveryDelay().toNanos());
                outstanding.incrementAndGet();
                counters.deliveries.increment();
                broker.add(new Delivery(event, release + delay));
            }
        }
        fedAll = true;
        return null;
    }

    private void purge(StormTarget target) {
        try {
            counters.purged.add(target.purge());
            counters.purges.increment();
        } catch (RuntimeException e) {
            counters.purgeErrors.increment();
        }
    }

    private Void consume(StormTarget target) throws Exception {
        while (!Thread.currentThread().isInterrupted()) {
            Delivery delivery;
            try {
                delivery = broker.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return null;
            }
            if (delivery == null) {
                if (fedAll && outstanding.get() == 0) {
                    return null;
                }
                continue;
            }
            handle(target, delivery);
        }
        return null;
    }

    private void handle(StormTarget target, Delivery delivery) throws Exception {
        int event = delivery.event;
        String id = DedupKeys.kafka(TOPIC, event % config.partitions(), event / config.partitions());
        Fault fault = drawFault(event);
        Outcome outcome;
        try {
            outcome = target.deliver(event, id, fault);
        } catch (RuntimeException | java.sql.SQLException e) {
            if (Thread.currentThread().isInterrupted()) {
                return; // the run is over
            }
            counters.storeErrors.increment();
            redeliver(delivery, Duration.ofMillis(50));
            return;
        }
        switch (outcome) {
            case PROCESSED -> {
                counters.processed.increment();
                outstanding.decrementAndGet();
            }
            case PROCESSED_LEASE_LOST -> {
                counters.processed.increment();
                causes.incrementAndGet(event);
                outstanding.decrementAndGet();
            }
            case DUPLICATE -> {
                counters.duplicates.increment();
                outstanding.decrementAndGet();
            }
            case BUSY -> {
                counters.busy.increment();
                redeliver(delivery, Duration.ofMillis(10));
            }
            case FAILED -> {
                counters.failures.increment();
                redeliver(delivery, Duration.ofMillis(5));
            }
            case UNRECORDED -> {
                counters.storeErrors.increment();
                counters.completionsFailed.increment();
                causes.incrementAndGet(event);
                redeliver(delivery, Duration.ofMillis(50));
            }
            case CRASHED -> {
                // Counted only when the consumer really held the event as it died.
                if (fault == Fault.CRASH_AFTER_WORK) {
                    counters.crashesAfterWork.increment();
                    causes.incrementAndGet(event);
                } else {
                    counters.crashesBeforeWork.increment();
                }
                redeliver(delivery, Duration.ofMillis(10)); // the broker's visibility timeout
            }
        }
    }

    /**
     * The fault for the next delivery of {@code event}, at the configured rates: a function of the
     * seed, the event and how often it was drawn for before, so the same seed crashes and fails the
     * same first deliveries in every run, whatever the threads' timing (a drawn rate of 1 % over 400
     * events gave some runs no crash at all).
     */
    Fault drawFault(int event) {
        int attempt = attempts.getAndIncrement(event);
        double r = unitInterval(config.seed(), event, attempt);
        if (r < config.crashBeforeWorkRate()) {
            return Fault.CRASH_BEFORE_WORK;
        }
        r -= config.crashBeforeWorkRate();
        if (r < config.crashAfterWorkRate()) {
            return Fault.CRASH_AFTER_WORK;
        }
        r -= config.crashAfterWorkRate();
        return r < config.failRate() ? Fault.FAIL_WORK : Fault.NONE;
    }

    /** A well-mixed value in [0, 1) for the three numbers (SplitMix64's finaliser). */
    static double unitInterval(long seed, int event, int attempt) {
        long z = seed + 0x9E3779B97F4A7C15L * (((long) event << 32) | (attempt & 0xFFFFFFFFL)) + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53;
    }

    private void redeliver(Delivery delivery, Duration after) {
        counters.redeliveries.increment();
        broker.add(new Delivery(delivery.event, System.nanoTime() + after.toNanos()));
    }

    /** What happened, counted across all consumers. */
    static final class Counters {
        final LongAdder deliveries = new LongAdder();
        final LongAdder redeliveries = new LongAdder();
        final LongAdder processed = new LongAdder();
        final LongAdder duplicates = new LongAdder();
        final LongAdder busy = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder crashesBeforeWork = new LongAdder();
        final LongAdder crashesAfterWork = new LongAdder();
        final LongAdder takeovers = new LongAdder();
        final LongAdder lateDuplicates = new LongAdder();
        final LongAdder leaseLost = new LongAdder();
        final LongAdder storeErrors = new LongAdder();
        final LongAdder completionsFailed = new LongAdder();
        final LongAdder purges = new LongAdder();
        final LongAdder purged = new LongAdder();
        final LongAdder purgeErrors = new LongAdder();
    }

    /**
     * Heap used after a full GC, and the records the store holds, sampled while the storm runs: a
     * soak's evidence that memory and the table stay bounded.
     */
    static final class Samples {
        final List<Long> heapAfterGcBytes = new ArrayList<>();
        final List<Long> records = new ArrayList<>();

        synchronized void take(StormTarget target) {
            System.gc();
            heapAfterGcBytes.add(
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            records.add(target.storedRecords());
        }

        synchronized String latest() {
            if (heapAfterGcBytes.isEmpty()) {
                return "";
            }
            long records = this.records.get(this.records.size() - 1);
            return String.format(
                    Locale.ROOT,
                    ", heap after GC %.1f MiB%s",
                    heapAfterGcBytes.get(heapAfterGcBytes.size() - 1) / 1048576.0,
                    records < 0 ? "" : String.format(Locale.ROOT, ", %,d records stored", records));
        }
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** One delivery of one event, due at a moment of the simulated broker. */
    private record Delivery(int event, long dueNanos) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(dueNanos, ((Delivery) other).dueNanos);
        }
    }
}
