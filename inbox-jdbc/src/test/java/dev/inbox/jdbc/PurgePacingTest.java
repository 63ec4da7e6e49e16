package dev.inbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PurgePacingTest {

    private final List<Long> slept = new ArrayList<>();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void rests_theRatioTimesTheBatchsTime() {
        PurgePacing pacing = new PurgePacing(2, slept::add);
        long batchTook = TimeUnit.MILLISECONDS.toNanos(40);

        assertThat(pacing.rest(System.nanoTime() - batchTook)).isTrue();

        assertThat(slept).hasSize(1);
        assertThat(slept.get(0))
                .isGreaterThanOrEqualTo(2 * batchTook)
                .isLessThan(2 * batchTook + TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void ratioZero_neverRests_andIsNone() {
        assertThat(PurgePacing.ratio(0)).isSameAs(PurgePacing.NONE);
        Thread.currentThread().interrupt();
        assertThat(PurgePacing.NONE.rest(System.nanoTime() - TimeUnit.SECONDS.toNanos(1)))
                .as("no pacing: an interrupt is not the purge's business")
                .isTrue();
    }

    @Test
    void anInterruptedThread_stopsWithoutResting_andKeepsItsFlag() {
        PurgePacing pacing = new PurgePacing(1, slept::add);
        Thread.currentThread().interrupt();

        assertThat(pacing.rest(System.nanoTime())).isFalse();

        assertThat(slept).isEmpty();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptDuringTheRest_stopsAndKeepsTheFlag() {
        PurgePacing pacing = new PurgePacing(1, nanos -> {
            throw new InterruptedException();
        });

        assertThat(pacing.rest(System.nanoTime())).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void badRatios_areRefused() {
        for (double bad : new double[] {-0.5, Double.NaN, Double.POSITIVE_INFINITY, PurgePacing.MAX_RATIO + 1}) {
            assertThatThrownBy(() -> PurgePacing.ratio(bad))
                    .as("ratio %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("nice ratio");
        }
        assertThat(PurgePacing.ratio(PurgePacing.MAX_RATIO).ratio()).isEqualTo(PurgePacing.MAX_RATIO);
    }
}
