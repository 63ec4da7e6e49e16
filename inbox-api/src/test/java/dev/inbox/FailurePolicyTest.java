package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @Test
    void attempts_givesUpAfterThatManyFailures_andWaitsTheBackoffBeforeEachRetry() {
        FailurePolicy policy = FailurePolicy.attempts(3, SECOND);
        assertThat(policy.givesUpAfter(1)).isFalse();
        assertThat(policy.givesUpAfter(2)).isFalse();
        assertThat(policy.givesUpAfter(3)).isTrue();
        assertThat(policy.backoffAfter(1)).isEqualTo(SECOND);
        assertThat(policy.backoffAfter(2)).isEqualTo(SECOND);
        assertThat(FailurePolicy.attempts(1, SECOND).givesUpAfter(1))
                .as("attempts(1): the first failure goes to the recoverer")
                .isTrue();
    }

    @Test
    void retryForever_neverGivesUp() {
        FailurePolicy policy = FailurePolicy.retryForever(SECOND);
        assertThat(policy.givesUpAfter(Integer.MAX_VALUE - 1)).isFalse();
        assertThat(policy.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void exponential_growsTheBackoffAfterEachFailure_upToItsMaximum() {
        FailurePolicy policy =
                FailurePolicy.attempts(20, Duration.ofMillis(100)).exponential(2.0, SECOND);
        assertThat(policy.backoffAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.backoffAfter(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(policy.backoffAfter(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(policy.backoffAfter(5)).isEqualTo(SECOND);
        assertThat(policy.backoffAfter(10_000)).isEqualTo(SECOND);
        assertThat(policy.maxAttempts()).isEqualTo(20);
    }

    @Test
    void attempts_areCountedPerMessage_andForgotten() {
        FailurePolicy.Attempts attempts = FailurePolicy.attempts(3, SECOND).attemptsOf();
        assertThat(attempts.any()).isFalse();
        assertThat(attempts.failed("p0@1")).isEqualTo(1);
        assertThat(attempts.failed("p0@1")).isEqualTo(2);
        assertThat(attempts.failed("p0@2")).isEqualTo(1);
        attempts.forget("p0@1");
        assertThat(attempts.failed("p0@1"))
                .as("counted again after it was forgotten")
                .isEqualTo(1);
        assertThat(attempts.any()).isTrue();
    }

    @Test
    void attempts_rememberABoundedNumberOfMessages_theOldestForgottenFirst() {
        FailurePolicy.Attempts attempts = FailurePolicy.retryForever(SECOND).attemptsOf();
        attempts.failed("first");
        for (int i = 0; i < FailurePolicy.REMEMBERED; i++) {
            attempts.failed("m" + i);
        }
        assertThat(attempts.failed("first")).as("the oldest was forgotten").isEqualTo(1);
        assertThat(attempts.failed("m" + (FailurePolicy.REMEMBERED - 1))).isEqualTo(2);
    }

    @Test
    void badArguments_areRefusedAtOnce() {
        assertThatThrownBy(() -> FailurePolicy.attempts(0, SECOND)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FailurePolicy.attempts(3, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FailurePolicy.retryForever(null)).isInstanceOf(IllegalArgumentException.class);
        FailurePolicy policy = FailurePolicy.attempts(3, SECOND);
        assertThatThrownBy(() -> policy.exponential(0.5, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.exponential(Double.NaN, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.exponential(2.0, Duration.ofMillis(10)))
                .as("a maximum shorter than the first back-off")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> policy.backoffAfter(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
