package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.DeliveryOutcome;
import dev.inbox.FailurePolicy;
import dev.inbox.InboxMetrics;
import dev.inbox.spi.DeliveryCounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The Kafka loops' one decision for a record that failed or has no key, without a broker. */
class RecordFailuresTest {

    private static final System.Logger LOG = System.getLogger(RecordFailuresTest.class.getName());
    private static final Duration BACKOFF = Duration.ofMillis(300);

    private final DeliveryCounts counts = new DeliveryCounts("orders", InboxMetrics.NONE);
    private final List<ConsumerRecord<String, String>> recovered = new ArrayList<>();

    private static ConsumerRecord<String, String> record(long offset) {
        return new ConsumerRecord<>("orders", 2, offset, "k", "v");
    }

    private RecordFailures<String, String> failures(FailurePolicy policy, RecordRecoverer<String, String> recoverer) {
        return new RecordFailures<>(LOG, "retried after", counts, BACKOFF, policy, recoverer, null);
    }

    @Test
    void withoutARecoverer_aRecordIsRetriedForEver_atTheFailureBackoff() {
        RecordFailures<String, String> failures =
                new RecordFailures<>(LOG, "retried after", counts, BACKOFF, null, null, null);

        for (int attempt = 1; attempt <= 50; attempt++) {
            assertThat(failures.handlerFailed(record(7), new IllegalStateException("down")))
                    .isEqualTo(RecordFailures.Decision.retry(BACKOFF));
        }
        assertThat(counts.count(DeliveryOutcome.FAILED)).isEqualTo(50);
        assertThat(counts.count(DeliveryOutcome.DEAD_LETTERED)).isZero();
    }

    @Test
    void withARecovererAndNoPolicy_aRecordGoesToItAfterTenFailedAttempts_notAtTheFirst() {
        RecordFailures<String, String> failures =
                new RecordFailures<>(LOG, "retried after", counts, BACKOFF, null, (r, e) -> recovered.add(r), null);

        for (int attempt = 1; attempt < RecordFailures.DEFAULT_ATTEMPTS; attempt++) {
            assertThat(failures.handlerFailed(record(7), new IllegalStateException("down"))
                            .done())
                    .as("attempt %d", attempt)
                    .isFalse();
        }
        assertThat(failures.handlerFailed(record(7), new IllegalStateException("down")))
                .isEqualTo(RecordFailures.Decision.DONE);
        assertThat(recovered).extracting(ConsumerRecord::offset).containsExactly(7L);
        assertThat(counts.count(DeliveryOutcome.DEAD_LETTERED)).isEqualTo(1);
    }

    @Test
    void attemptsAreCountedPerRecord_andForgottenWhenItSucceeds() {
        RecordFailures<String, String> failures = failures(
                FailurePolicy.attempts(2, BACKOFF).exponential(2, Duration.ofSeconds(5)), (r, e) -> recovered.add(r));

        assertThat(failures.handlerFailed(record(1), new RuntimeException()).retryAfter())
                .isEqualTo(BACKOFF);
        assertThat(failures.handlerFailed(record(2), new RuntimeException()).done())
                .as("another record's first failure")
                .isFalse();
        failures.succeeded(record(1));
        assertThat(failures.handlerFailed(record(1), new RuntimeException()).done())
                .as("counted from one again after its success")
                .isFalse();
        assertThat(failures.handlerFailed(record(1), new RuntimeException()).done())
                .isTrue();
        assertThat(failures.handlerFailed(record(2), new RuntimeException()).done())
                .isTrue();
        assertThat(recovered).extracting(ConsumerRecord::offset).containsExactly(1L, 2L);
    }

    @Test
    void aRecovererThatFails_isAFailureTriedAgainAtTheFailureBackoff_andNothingIsDone() {
        RecordFailures<String, String> failures = failures(FailurePolicy.attempts(1, Duration.ofSeconds(9)), (r, e) -> {
            throw new IllegalStateException("dead-letter topic down");
        });

        assertThat(failures.handlerFailed(record(3), new RuntimeException("work")))
                .isEqualTo(RecordFailures.Decision.retry(BACKOFF));
        assertThat(counts.count(DeliveryOutcome.FAILED)).isEqualTo(1);
        assertThat(counts.count(DeliveryOutcome.DEAD_LETTERED)).isZero();
    }

    @Test
    void aRecordWithoutAKey_goesToTheMissingKeyRecoverer_orIsTheLoopsToDecide() {
        RecordFailures<String, String> withRecoverer =
                new RecordFailures<>(LOG, "retried after", counts, BACKOFF, null, null, (r, e) -> recovered.add(r));
        RecordFailures<String, String> without =
                new RecordFailures<>(LOG, "retried after", counts, BACKOFF, null, null, null);

        assertThat(withRecoverer.recoversMissingKeys()).isTrue();
        assertThat(withRecoverer.keyMissing(record(5), new IllegalArgumentException("no key")))
                .isEqualTo(RecordFailures.Decision.DONE);
        assertThat(recovered).extracting(ConsumerRecord::offset).containsExactly(5L);
        assertThat(without.recoversMissingKeys()).isFalse();
        assertThatThrownBy(() -> without.keyMissing(record(5), new IllegalArgumentException("no key")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("orders-2@5");
    }
}
