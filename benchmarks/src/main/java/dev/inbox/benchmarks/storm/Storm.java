package dev.inbox.benchmarks.storm;

import dev.inbox.ClaimResult;
import dev.inbox.InboxMetrics;
import dev.inbox.keys.DedupKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

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
    private final ThreadLocal<LatencyRecorder> latencies = new ThreadLocal<>();
    private final List<LatencyRecorder> allLatencies = Collections.synchronizedList(new ArrayList<>());
    private final InboxMetrics metrics = new InboxMetrics() {
        @Override
        public void claimed(String consumer, ClaimResult result, long nanos) {
            LatencyRecorder recorder = latencies.get();
            if (recorder != null) {
                recorder.record(nanos);
            }
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
    };

    Storm(StormConfig config) {
        this.config = config;
    }

    /** The metrics a target must report its claims to. */
    InboxMetrics metrics() {
        return metrics;
    }

    /** Runs the storm against {@code target} and reports; {@code progress} hears every 2 seconds. */
    StormReport run(StormTarget target, Consumer<String> progress) throws Exception {
        Random plan = new Random(config.seed());
        long start = System.nanoTime();
        for (int event = 0; event < config.events(); event++) {
            int copies = 1 + plan.nextInt(config.maxRedeliveries() + 1);
            for (int copy = 0; copy < copies; copy++) {
                // The first delivery is due at once; redeliveries race with it or come later, in any order.
                long delay = copy == 0
                        ? 0
                        : (long)
                                (plan.nextDouble() * config.maxRedeliveryDelay().toNanos());
                broker.add(new Delivery(event, start + delay));
                outstanding.incrementAndGet();
                counters.deliveries.increment();
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(config.consumers());
        List<Future<?>> consumers = new ArrayList<>();
        for (int c = 0; c < config.consumers(); c++) {
            consumers.add(pool.submit(() -> consume(target)));
        }
        long deadline = start + DEADLINE.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        boolean finished = true;
        try {
            while (outstanding.get() > 0) {
                Thread.sleep(50);
                for (Future<?> consumer : consumers) {
                    if (consumer.isDone()) {
                        consumer.get(); // a consumer died: surface why
                    }
                }
                long now = System.nanoTime();
                if (now - nextProgress >= 0) {
                    progress.accept(String.format(
                            "storm: %,d of %,d deliveries outstanding, %,d processed, %.0f s",
                            outstanding.get(),
                            counters.deliveries.sum(),
                            counters.processed.sum(),
                            (now - start) / 1e9));
                    nextProgress = now + TimeUnit.SECONDS.toNanos(2);
                }
                if (now - deadline >= 0) {
                    finished = false;
                    break;
                }
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
        long elapsed = System.nanoTime() - start;
        return StormReport.of(
                config,
                target,
                counters,
                target.appliedCounts(config.events()),
                LatencyRecorder.merge(allLatencies),
                elapsed,
                finished);
    }

    private Void consume(StormTarget target) throws Exception {
        LatencyRecorder recorder = new LatencyRecorder();
        latencies.set(recorder);
        allLatencies.add(recorder);
        while (!Thread.currentThread().isInterrupted()) {
            Delivery delivery;
            try {
                delivery = broker.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return null;
            }
            if (delivery == null) {
                if (outstanding.get() == 0) {
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
        Fault fault = drawFault();
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
            case CRASHED -> {
                // Counted only when the consumer really held the event as it died.
                (fault == Fault.CRASH_AFTER_WORK ? counters.crashesAfterWork : counters.crashesBeforeWork).increment();
                redeliver(delivery, Duration.ofMillis(10)); // the broker's visibility timeout
            }
        }
    }

    private Fault drawFault() {
        double r = ThreadLocalRandom.current().nextDouble();
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
