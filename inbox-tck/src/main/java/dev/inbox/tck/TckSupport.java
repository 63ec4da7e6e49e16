package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Helpers shared by the contract classes. */
final class TckSupport {

    private TckSupport() {}

    /** A consumer name no other test uses, so tests never see each other's records. */
    static String freshConsumer() {
        return "tck-" + UUID.randomUUID();
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }

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
        CyclicBarrier barrier = new CyclicBarrier(threads);
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

    /**
     * Asserts that {@code call} fails with {@link InboxStoreException}, with a message, within
     * {@code bound}: what every operation must do while its server cannot answer.
     */
    static void assertStoreFailure(Duration bound, String operation, ThrowingCallable call) {
        assertTimeoutPreemptively(
                bound,
                () -> {
                    Throwable thrown = catchThrowable(call);
                    assertThat(thrown)
                            .as("%s while the server cannot answer", operation)
                            .isInstanceOf(InboxStoreException.class);
                    assertThat(thrown.getMessage())
                            .as("the message of %s's failure", operation)
                            .isNotBlank();
                },
                operation + " did not fail within the bound");
    }

    static long count(List<ClaimResult> results, ClaimResult wanted) {
        return results.stream().filter(wanted::equals).count();
    }
}
