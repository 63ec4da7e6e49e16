package dev.inbox.caffeine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.inbox.Inbox;
import dev.inbox.RetentionAdvice;
import dev.inbox.RetentionAdvisor;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The redelivery lag an inbox measures, and the retention it recommends, on a store with a fake clock. */
class RetentionAdviceTest {

    private final AtomicLong now = new AtomicLong();
    private final Ticker ticker = now::get;
    private final CaffeineInboxStore store = CaffeineInboxStore.builder()
            .ticker(ticker)
            .grace(Duration.ofHours(1))
            .build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Inbox inbox = Inbox.builder(store)
            .consumer("billing")
            .retention(Duration.ofMinutes(10))
            .lease(Duration.ofSeconds(30))
            .metrics(MicrometerInboxMetrics.of(registry))
            .build();

    @AfterEach
    void close() {
        store.close();
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    @Test
    void beforeAnyDuplicate_thereIsNoRecommendation_andTheGaugeShowsTheConfiguredRetention_neverNaN() {
        assertThat(registry.find("inbox.retention.recommended").gauge())
                .as("no gauge before the inbox's first claim (a scoped inbox beside it would otherwise leave"
                        + " the unscoped one's NaN, and Actuator's untagged view would sum them)")
                .isNull();
        inbox.handle("e1", () -> {});
        RetentionAdvice advice = inbox.retentionAdvice();
        assertThat(advice.measured()).isZero();
        assertThat(advice.recommended()).isNull();
        assertThat(advice.isUndersized()).isFalse();
        assertThat(advice.configured()).isEqualTo(Duration.ofMinutes(10));
        assertThat(registry.get("inbox.retention.recommended").gauge().value()).isEqualTo(600.0);
        assertThat(registry.get("inbox.retention.configured").gauge().value()).isEqualTo(600.0);
    }

    @Test
    void duplicates_measureTheLag_andALateOneMakesTheRetentionUndersized() {
        inbox.handle("e1", () -> {});
        advance(Duration.ofMinutes(4));
        inbox.handle("e1", () -> {});
        RetentionAdvice early = inbox.retentionAdvice();
        assertThat(early.longestLag()).isEqualTo(Duration.ofMinutes(4));
        // (4 min + the 30 s lease) × 1.25 = 337.5 s
        assertThat(early.recommended()).isEqualTo(Duration.ofMillis(337_500));
        assertThat(early.isUndersized()).as("10 minutes cover a 4-minute lag").isFalse();

        advance(Duration.ofMinutes(8)); // 12 minutes after the completion: 2 past the retention, in grace
        assertThat(inbox.handle("e1", () -> {}).isLateDuplicate()).isTrue();
        RetentionAdvice advice = inbox.retentionAdvice();
        assertThat(advice.measured()).isEqualTo(2);
        assertThat(advice.longestLag()).isEqualTo(Duration.ofMinutes(12));
        assertThat(advice.lateDuplicates()).isEqualTo(1);
        assertThat(advice.longestPastRetention()).isEqualTo(Duration.ofMinutes(2));
        // (12 min + 30 s) × 1.25 = 937.5 s
        assertThat(advice.recommended()).isEqualTo(Duration.ofMillis(937_500));
        assertThat(advice.isUndersized()).isTrue();

        assertThat(registry.get("inbox.retention.recommended").gauge().value()).isEqualTo(937.5);
        assertThat(registry.get("inbox.redelivery.lag").timer().count()).isEqualTo(2);
        assertThat(registry.get("inbox.redelivery.lag").timer().max(TimeUnit.SECONDS))
                .isEqualTo(720.0);
        assertThat(registry.get("inbox.late.duplicate.delay").timer().count()).isEqualTo(1);
        assertThat(registry.get("inbox.late.duplicate.delay").timer().totalTime(TimeUnit.SECONDS))
                .isEqualTo(120.0);
    }

    @Test
    void batches_areMeasuredToo() {
        inbox.handleAll(java.util.List.of("a", "b"), id -> id, id -> {});
        advance(Duration.ofMinutes(1));
        inbox.claims().claimAll(java.util.List.of("a", "b", "c"));
        assertThat(inbox.retentionAdvice().measured()).isEqualTo(2);
        assertThat(inbox.retentionAdvice().longestLag()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theAdvisor_ignoresAnswersWithoutATime_andChecksItsArguments() {
        RetentionAdvisor advisor = new RetentionAdvisor(Duration.ofHours(48), Duration.ZERO);
        assertThat(advisor.observe(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED)))
                .isNull();
        assertThat(advisor.observe(ClaimResult.acquired().withPastRetention(Duration.ofDays(1))))
                .isNull();
        assertThat(advisor.observe(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED)
                        .withPastRetention(Duration.ofDays(365_000_000))))
                .as("a time past retention too long for nanoseconds saturates")
                .isPositive();
        assertThat(advisor.advice().recommended()).isPositive();
        assertThatThrownBy(() -> new RetentionAdvisor(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetentionAdvisor(Duration.ofHours(1), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
