package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.AdapterRule;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.platform.testkit.engine.Events;

/**
 * The adapter kit's self-tests on its Kafka reference adapters on the real broker — a consumer
 * group's poll loop ({@link ReferenceKafkaHarness}) and a share group's consumer ({@link
 * ReferenceShareHarness}): each passes every rule, and each broken variant fails the rule that
 * names its breakage. A class of its own, so that its kits (and the broker they share) do not run beside the
 * RabbitMQ and SQS ones of {@link AdapterKitSelfTest}, whose meta-test counts these too. All
 * {@code extended}: CI runs them.
 */
@Tag("extended")
class KafkaAdapterKitSelfTest {

    /**
     * A kit on one of the Kafka reference adapters: a 1-s lease, 50-ms back-offs, 40 s of patience
     * for the correct adapter and 10 s for a broken one, and no time floor on the kit's 20 retries.
     */
    abstract static class QuickKit extends AdapterContract {
        /** Whether the adapter under test is the correct one. */
        abstract boolean correct();

        @Override
        protected Duration lease() {
            return Duration.ofSeconds(1);
        }

        @Override
        protected Duration backoff() {
            return Duration.ofMillis(50);
        }

        @Override
        protected Duration patience() {
            return correct() ? Duration.ofSeconds(40) : Duration.ofSeconds(10);
        }

        @Override
        protected Duration persistence() {
            return Duration.ofMillis(500);
        }
    }

    /** A kit on the Kafka reference adapter (lease mode), broken as {@link #breakage()} says. */
    abstract static class KafkaReferenceKit extends QuickKit {
        abstract ReferenceKafkaHarness.Breakage breakage();

        @Override
        boolean correct() {
            return breakage() == ReferenceKafkaHarness.Breakage.NONE;
        }

        @Override
        protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
            return new ReferenceKafkaHarness(kit, breakage());
        }
    }

    static class CorrectKafka extends KafkaReferenceKit {
        @Override
        ReferenceKafkaHarness.Breakage breakage() {
            return ReferenceKafkaHarness.Breakage.NONE;
        }
    }

    static class KafkaCommitsPastFailedWork extends KafkaReferenceKit {
        @Override
        ReferenceKafkaHarness.Breakage breakage() {
            return ReferenceKafkaHarness.Breakage.COMMITS_PAST_FAILED_WORK;
        }
    }

    static class KafkaCommitsPastBusy extends KafkaReferenceKit {
        @Override
        ReferenceKafkaHarness.Breakage breakage() {
            return ReferenceKafkaHarness.Breakage.COMMITS_PAST_BUSY;
        }
    }

    static class KafkaNoSeekAfterAnError extends KafkaReferenceKit {
        @Override
        ReferenceKafkaHarness.Breakage breakage() {
            return ReferenceKafkaHarness.Breakage.NO_SEEK_AFTER_AN_ERROR;
        }
    }

    static class KafkaNoCompletionRetry extends KafkaReferenceKit {
        @Override
        ReferenceKafkaHarness.Breakage breakage() {
            return ReferenceKafkaHarness.Breakage.NO_COMPLETION_RETRY;
        }
    }

    /** A kit on the share-group reference adapter (lease mode), broken as {@link #breakage()} says. */
    abstract static class ShareReferenceKit extends QuickKit {
        abstract ReferenceShareHarness.Breakage breakage();

        @Override
        boolean correct() {
            return breakage() == ReferenceShareHarness.Breakage.NONE;
        }

        @Override
        protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
            return new ReferenceShareHarness(kit, breakage());
        }
    }

    static class CorrectShare extends ShareReferenceKit {
        @Override
        ReferenceShareHarness.Breakage breakage() {
            return ReferenceShareHarness.Breakage.NONE;
        }
    }

    static class ShareAcceptsBeforeCompleting extends ShareReferenceKit {
        @Override
        ReferenceShareHarness.Breakage breakage() {
            return ReferenceShareHarness.Breakage.ACCEPT_BEFORE_COMPLETE;
        }
    }

    static class ShareNoLockRenewal extends ShareReferenceKit {
        @Override
        ReferenceShareHarness.Breakage breakage() {
            return ReferenceShareHarness.Breakage.NO_LOCK_RENEWAL;
        }
    }

    static class ShareReleasesBusy extends ShareReferenceKit {
        @Override
        ReferenceShareHarness.Breakage breakage() {
            return ReferenceShareHarness.Breakage.RELEASE_ON_BUSY;
        }
    }

    /** The share-group reference on the real broker: CI runs it. */
    @Test
    @Tag("extended")
    void theShareReferenceAdapterPassesEveryRule() {
        Events events = KitRun.all(CorrectShare.class);
        assertThat(events.started().count()).isEqualTo(AdapterRule.values().length);
        assertThat(KitRun.failures(events))
                .as("rules failed by the share-group reference adapter")
                .isEmpty();
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A14 catches a share-group adapter that ACCEPTs a record before its claim is completed")
    void a14_shareAcceptsBeforeCompleting() {
        assertThat(KitRun.failedRules(ShareAcceptsBeforeCompleting.class, "A14", "A7"))
                .containsExactly("A14");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A11 catches a share-group adapter that lets a record's acquisition lock lapse while it works")
    void a11_shareNoLockRenewal() {
        assertThat(KitRun.failedRules(ShareNoLockRenewal.class, "A11")).contains("A11");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 catches a share-group adapter that RELEASEs a BUSY record until the group's delivery limit"
            + " archives it")
    void a8_shareReleasesBusy() {
        assertThat(KitRun.failedRules(ShareReleasesBusy.class, "A8")).contains("A8");
    }

    /** The Kafka reference on the real broker (started once for this JVM): CI runs it. */
    @Test
    @Tag("extended")
    void theKafkaReferenceAdapterPassesEveryRule() {
        Events events = KitRun.all(CorrectKafka.class);
        assertThat(events.started().count()).isEqualTo(AdapterRule.values().length);
        assertThat(KitRun.failures(events))
                .as("rules failed by the Kafka reference adapter")
                .isEmpty();
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A2 catches a Kafka adapter that commits past a record whose work threw")
    void a2_kafkaCommitsPastFailedWork() {
        assertThat(KitRun.failedRules(KafkaCommitsPastFailedWork.class, "A2")).contains("A2");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 catches a Kafka adapter that commits past a BUSY record")
    void a8_kafkaCommitsPastBusy() {
        assertThat(KitRun.failedRules(KafkaCommitsPastBusy.class, "A8")).contains("A8");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A3 catches a Kafka adapter that goes on past an Error without seeking back to its record")
    void a3_kafkaNoSeekAfterAnError() {
        assertThat(KitRun.failedRules(KafkaNoSeekAfterAnError.class, "A3")).contains("A3");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A13 catches a Kafka adapter that does not retry a completion that failed once (lease mode)")
    void a13_kafkaNoCompletionRetry() {
        assertThat(KitRun.failedRules(KafkaNoCompletionRetry.class, "A13")).contains("A13");
    }
}
