package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spi.ClaimResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/** Threads that start each round together, for the race rules (C8, T2, O1). */
final class Race {

    /** How long after the last racer arrives a round starts: time for the barrier to wake every racer. */
    private static final long START_DELAY_NANOS = 300_000;

    private Race() {}

    /** One racer's step in one round; {@code round} is 0-based. */
    @FunctionalInterface
    interface RoundTask<T> {
        T run(int round, int thread) throws Exception;
    }

    /**
     * Runs {@code threads} threads through {@code rounds} rounds, all threads starting each round
     * together, and returns results[round][thread].
     */
    static <T> List<List<T>> race(int threads, int rounds, RoundTask<T> task, IntFunction<T[]> arrays)
            throws Exception {
        // The last racer to arrive sets when the round starts, a moment later: every racer is awake
        // by then and spins until that instant, so they set off together rather than in the order a
        // barrier wakes them (which spreads them over tens of microseconds, wider than many races).
        AtomicLong startsAt = new AtomicLong();
        CyclicBarrier barrier = new CyclicBarrier(threads, () -> startsAt.set(System.nanoTime() + START_DELAY_NANOS));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<T[]> results = new ArrayList<>(rounds);
        for (int r = 0; r < rounds; r++) {
            results.add(arrays.apply(threads));
        }
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        barrier.await(60, TimeUnit.SECONDS);
                        long start = startsAt.get();
                        while (System.nanoTime() - start < 0) {
                            Thread.onSpinWait();
                        }
                        results.get(r)[thread] = task.run(r, thread);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                try {
                    future.get(10, TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException e) {
                    barrier.reset();
                    if (e.getCause() instanceof BrokenBarrierException) {
                        continue; // another racer failed first; its cause is reported
                    }
                    throw new AssertionError("a racer failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("the race did not finish in time", e);
                }
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS))
                    .as("racers stopped")
                    .isTrue();
        }
        List<List<T>> out = new ArrayList<>(rounds);
        for (T[] row : results) {
            out.add(List.of(row));
        }
        return out;
    }

    /** How many of {@code results} equal {@code wanted}. */
    static long count(List<ClaimResult> results, ClaimResult wanted) {
        return results.stream().filter(wanted::equals).count();
    }
}
