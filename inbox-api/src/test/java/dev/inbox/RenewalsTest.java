package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one place every adapter keeps its work in hand alive. */
class RenewalsTest {

    private static final Duration TICK = Duration.ofMillis(5);
    private static final Renewals.InHand LONG = new Renewals.InHand(System.nanoTime(), Duration.ofHours(1), () -> {});

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    private final Renewals renewals = Renewals.on(executor);

    @AfterEach
    void shutDown() {
        executor.shutdownNow();
    }

    @Test
    void aTickRunsEveryPeriod_untilItsFutureIsCancelled() throws Exception {
        CountDownLatch three = new CountDownLatch(3);
        AtomicInteger ticks = new AtomicInteger();

        ScheduledFuture<?> task = renewals.every(TICK, Duration.ZERO, LONG, () -> {
            ticks.incrementAndGet();
            three.countDown();
        });

        assertThat(three.await(10, TimeUnit.SECONDS)).isTrue();
        task.cancel(false);
        int atCancel = ticks.get();
        // one tick may have been running as it was cancelled; none starts after
        awaitQuiet(ticks);
        assertThat(ticks.get()).isBetween(atCancel, atCancel + 1);
    }

    @Test
    void aTickThatThrowsAnUnexpectedException_isTriedAgainAtTheNextTick() throws Exception {
        CountDownLatch again = new CountDownLatch(3);

        renewals.every(TICK, Duration.ZERO, LONG, () -> {
            again.countDown();
            throw new IllegalStateException("a store's bug");
        });

        assertThat(again.await(10, TimeUnit.SECONDS))
                .as("ticks after one threw")
                .isTrue();
    }

    @Test
    void aTickThatThrowsCancellation_endsItsTask() throws Exception {
        AtomicInteger ticks = new AtomicInteger();

        ScheduledFuture<?> task = renewals.every(TICK, Duration.ZERO, LONG, () -> {
            ticks.incrementAndGet();
            throw new CancellationException("the work ended");
        });

        awaitDone(task);
        assertThat(ticks).hasValue(1);
    }

    @Test
    void pastItsMaximumInHandTime_aTaskIsAbandonedOnce_andItsTickNoLongerRuns() throws Exception {
        AtomicInteger abandoned = new AtomicInteger();
        AtomicInteger ticks = new AtomicInteger();
        long anHourAgo = System.nanoTime() - Duration.ofHours(1).toNanos();

        ScheduledFuture<?> task = renewals.every(
                TICK,
                Duration.ZERO,
                new Renewals.InHand(anHourAgo, Duration.ofMinutes(59), abandoned::incrementAndGet),
                ticks::incrementAndGet);

        awaitDone(task);
        assertThat(abandoned).hasValue(1);
        assertThat(ticks).hasValue(0);
    }

    @Test
    void theSharedServiceRunsTasksToo() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);

        ScheduledFuture<?> task = Renewals.shared().every(TICK, Duration.ZERO, LONG, ran::countDown);

        try {
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            task.cancel(false);
        }
    }

    @Test
    void badArguments_areRefusedBeforeAnythingIsScheduled() {
        assertThatThrownBy(() -> Renewals.on(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> renewals.every(Duration.ZERO, Duration.ZERO, LONG, () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("every");
        assertThatThrownBy(() -> renewals.every(TICK, Duration.ofMillis(-1), LONG, () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("first");
        assertThatThrownBy(() -> renewals.every(TICK, Duration.ZERO, null, () -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> renewals.every(TICK, Duration.ZERO, LONG, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Renewals.InHand(0, Duration.ZERO, () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max");
        assertThat(executor.shutdownNow()).isEmpty();
    }

    private static void awaitDone(ScheduledFuture<?> task) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!task.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(task.isDone()).as("the task ended").isTrue();
    }

    /** Waits until the count has not moved for twenty ticks (bounded). */
    private static void awaitQuiet(AtomicInteger ticks) throws InterruptedException {
        int last = -1;
        for (int i = 0; i < 100 && ticks.get() != last; i++) {
            last = ticks.get();
            Thread.sleep(TICK.toMillis() * 20);
        }
    }
}
