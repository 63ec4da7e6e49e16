package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The visibility arithmetic and schedule the SQS loop and the Spring SQS listener share. */
class InvisibilityTest {

    @Test
    void seconds_roundUp_soAMessageNeverComesBackBeforeItsTime_andStayWithinWhatSqsTakes() {
        assertThat(Invisibility.seconds(Duration.ZERO)).isZero();
        assertThat(Invisibility.seconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(Invisibility.seconds(Duration.ofMillis(1000))).isEqualTo(1);
        assertThat(Invisibility.seconds(Duration.ofMillis(1001))).isEqualTo(2);
        assertThat(Invisibility.seconds(Duration.ofMinutes(1))).isEqualTo(60);
        assertThat(Invisibility.seconds(Duration.ofDays(1))).isEqualTo(Invisibility.MAX_VISIBILITY_SECONDS);
        assertThat(Invisibility.seconds(Duration.ofSeconds(-5))).isZero();
        assertThatThrownBy(() -> Invisibility.seconds(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keep_extendsEveryThirdOfWhatOneExtensionHolds_untilCancelled() throws Exception {
        CountDownLatch three = new CountDownLatch(3);
        AtomicInteger abandoned = new AtomicInteger();

        ScheduledFuture<?> keeping = Invisibility.keep(
                Duration.ofMillis(30), Duration.ofHours(1), abandoned::incrementAndGet, three::countDown);

        assertThat(three.await(10, TimeUnit.SECONDS)).as("three extensions").isTrue();
        keeping.cancel(false);
        assertThat(abandoned).hasValue(0);
    }

    @Test
    void keep_endsPastTheMaximumInHand_andSaysSoOnce() throws Exception {
        CountDownLatch saidSo = new CountDownLatch(1);
        AtomicInteger abandoned = new AtomicInteger();
        AtomicInteger extensions = new AtomicInteger();

        ScheduledFuture<?> keeping = Invisibility.keep(
                Duration.ofMillis(15),
                Duration.ofMillis(100),
                () -> {
                    abandoned.incrementAndGet();
                    saidSo.countDown();
                },
                extensions::incrementAndGet);

        assertThat(saidSo.await(10, TimeUnit.SECONDS)).isTrue();
        // the task ends right after saying so (its tick throws), on the pool's thread
        try {
            keeping.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException ended) {
            assertThat(ended).hasCauseInstanceOf(java.util.concurrent.CancellationException.class);
        }
        assertThat(keeping.isDone()).as("no more extensions").isTrue();
        assertThat(extensions.get()).as("extended while in hand").isPositive();
        assertThat(abandoned).hasValue(1);
    }

    @Test
    void keep_refusesBadArguments() {
        Runnable none = () -> {};
        assertThatThrownBy(() -> Invisibility.keep(Duration.ZERO, Duration.ofMinutes(1), none, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Invisibility.keep(null, Duration.ofMinutes(1), none, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Invisibility.keep(Duration.ofSeconds(1), null, none, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Invisibility.keep(Duration.ofSeconds(1), Duration.ofMinutes(1), null, none))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Invisibility.keep(Duration.ofSeconds(1), Duration.ofMinutes(1), none, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
