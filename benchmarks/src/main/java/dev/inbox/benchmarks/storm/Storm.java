package dev.inbox.benchmarks.storm;

import dev.inbox.ClaimRequest;
import dev.inbox.ClaimResult;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxStore;
import dev.inbox.OwnerToken;
import dev.inbox.keys.DedupKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * One redelivery storm against one store. A simulated broker holds every delivery in a delay
 * queue; consumer threads take them, handle them through {@link Inbox}, and either acknowledge
 * them or hand them back for redelivery (BUSY, work that threw, a consumer that crashed). A ledger
 * counts how many times each event's effect was applied.
 */
final class Storm {

    static final String CONSUMER = "storm";
    private static final String TOPIC = "storm-events";
    private static final Duration DEADLINE = Duration.ofMinutes(30);

    private final StormConfig config;
    private final InboxStore store;
    private final DelayQueue<Delivery> broker = new DelayQueue<>();
    private final AtomicIntegerArray ledger;
    private final AtomicLong outstanding = new AtomicLong();
    private final Counters counters = new Counters();
    private final ThreadLocal<LatencyRecorder> latencies = new ThreadLocal<>();
    private final List<LatencyRecorder> allLatencies = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Inbox inbox;

    Storm(StormConfig config, InboxStore store) {
        this.config = config;
        this.store = store;
        this.ledger = new AtomicIntegerArray(config.events());
        this.inbox = Inbox.builder(store)
                .consumer(CONSUMER)
                .lease(config.lease())
                .retention(config.retention())
                .metrics(new InboxMetrics() {
                    @Override
                    public void claimed(String consumer, ClaimResult result, long nanos) {
                        observe(result, nanos);
                    }
                })
                .build();
    }

    /** Runs the storm to the end and reports; {@code progress} receives a line every 2 seconds. */
    StormReport run(Consumer<String> progress) throws Exception {
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
            consumers.add(pool.submit(this::consume));
        }
        long deadline = start + DEADLINE.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        boolean finished = true;
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
                        outstanding.get(), counters.deliveries.sum(), counters.processed.sum(), (now - start) / 1e9));
                nextProgress = now + TimeUnit.SECONDS.toNanos(2);
            }
            if (now - deadline >= 0) {
                finished = false;
                break;
            }
        }
        pool.shutdownNow();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        long elapsed = System.nanoTime() - start;
        return StormReport.of(config, counters, ledger, LatencyRecorder.merge(allLatencies), elapsed, finished);
    }

    private Void consume() throws InterruptedException {
        LatencyRecorder recorder = new LatencyRecorder();
        latencies.set(recorder);
        allLatencies.add(recorder);
        while (!Thread.currentThread().isInterrupted()) {
            Delivery delivery = broker.poll(100, TimeUnit.MILLISECONDS);
            if (delivery == null) {
                if (outstanding.get() == 0) {
                    return null;
                }
                continue;
            }
            handle(delivery);
        }
        return null;
    }

    private void handle(Delivery delivery) {
        int event = delivery.event;
        String id = DedupKeys.kafka(TOPIC, event % config.partitions(), event / config.partitions());
        double fault = ThreadLocalRandom.current().nextDouble();
        if (fault < config.crashBeforeWorkRate() + config.crashAfterWorkRate()) {
            crash(delivery, id, fault >= config.crashBeforeWorkRate());
            return;
        }
        boolean failWork = ThreadLocalRandom.current().nextDouble() < config.failRate();
        try {
            HandleResult result = inbox.handle(id, () -> {
                if (failWork) {
                    throw new SimulatedFailure();
                }
                ledger.incrementAndGet(event);
            });
            switch (result.outcome()) {
                case PROCESSED -> {
                    counters.processed.increment();
                    if (result.leaseLost()) {
                        counters.leaseLost.increment();
                    }
                    acknowledge();
                }
                case DUPLICATE -> {
                    counters.duplicates.increment();
                    acknowledge();
                }
                case BUSY -> {
                    counters.busy.increment();
                    redeliver(delivery, Duration.ofMillis(10));
                }
            }
        } catch (SimulatedFailure e) {
            counters.failures.increment();
            redeliver(delivery, Duration.ofMillis(5));
        } catch (RuntimeException e) {
            counters.storeErrors.increment();
            redeliver(delivery, Duration.ofMillis(50));
        }
    }

    /** A consumer that claims and then dies: it never completes or releases, so the lease must expire. */
    private void crash(Delivery delivery, String id, boolean afterWork) {
        long t0 = System.nanoTime();
        ClaimResult claim;
        try {
            claim = store.claim(ClaimRequest.of(InboxKey.of(CONSUMER, id), OwnerToken.random(), config.lease()));
        } catch (RuntimeException e) {
            counters.storeErrors.increment();
            redeliver(delivery, Duration.ofMillis(50));
            return;
        }
        observe(claim, System.nanoTime() - t0);
        switch (claim.status()) {
            case ACQUIRED -> {
                if (afterWork) {
                    ledger.incrementAndGet(delivery.event);
                    counters.crashesAfterWork.increment();
                } else {
                    counters.crashesBeforeWork.increment();
                }
                redeliver(delivery, Duration.ofMillis(10)); // the broker's visibility timeout
            }
            case DUPLICATE -> {
                counters.duplicates.increment();
                acknowledge();
            }
            case BUSY -> {
                counters.busy.increment();
                redeliver(delivery, Duration.ofMillis(10));
            }
        }
    }

    private void observe(ClaimResult result, long nanos) {
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

    private void acknowledge() {
        outstanding.decrementAndGet();
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

    /** The work's simulated failure: the broker redelivers. */
    private static final class SimulatedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulatedFailure() {
            super("simulated failure", null, false, false);
        }
    }
}
