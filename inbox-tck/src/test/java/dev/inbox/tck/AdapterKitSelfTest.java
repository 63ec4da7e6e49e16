package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.tck.ReferenceRabbitHarness.Breakage;
import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.tck.adapter.AdapterHarness;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.AdapterRule;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.platform.testkit.engine.Events;

/**
 * Tests the adapter kit itself, on the real RabbitMQ: it passes the reference adapter (in lease
 * mode, and in transactional mode on an embedded H2 database) and fails each deliberately broken
 * one on the rule it breaks. The kit subclasses below are static nested
 * classes, which Surefire does not run on its own; only the engine test kit here runs them. The
 * reference run and the meta-tests are in the default build; the broken adapters (about 6 s
 * each, seven at once) are {@code extended}, which CI runs.
 */
class AdapterKitSelfTest {

    /** A kit on the reference adapter, broken as {@link #breakage()} says. */
    abstract static class ReferenceKit extends AdapterContract {
        abstract Breakage breakage();

        /** The H2 database of the transactional reference; null for the lease-mode one. */
        @Nullable
        DataSource database() {
            return null;
        }

        @Override
        protected @Nullable DataSource ledgerDataSource() {
            return database();
        }

        @Override
        protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
            return new ReferenceRabbitHarness(kit, breakage(), database());
        }

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
            return breakage() == Breakage.NONE ? Duration.ofSeconds(30) : Duration.ofSeconds(6);
        }

        /** The kit's 20 retries (at the 50 ms back-off) catch a reference that gives up; no time floor needed. */
        @Override
        protected Duration persistence() {
            return Duration.ofMillis(500);
        }
    }

    /** The reference in transactional mode, on an H2 database of its own (per kit class). */
    abstract static class TransactionalReferenceKit extends ReferenceKit {
        private static final Map<Class<?>, DataSource> DATABASES = new ConcurrentHashMap<>();

        @Override
        DataSource database() {
            return DATABASES.computeIfAbsent(getClass(), k -> {
                JdbcDataSource h2 = new JdbcDataSource();
                h2.setURL("jdbc:h2:mem:adapter-kit-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=2000");
                return h2;
            });
        }
    }

    static class CorrectTransactional extends TransactionalReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NONE;
        }
    }

    static class AcksFailedCommits extends TransactionalReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_STORE_FAILURE;
        }
    }

    static class AcksBeforeCommit extends TransactionalReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_BEFORE_COMMIT;
        }
    }

    static class Correct extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NONE;
        }
    }

    static class NoDedup extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NO_DEDUP;
        }
    }

    static class AcksFailedWork extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_FAILED_WORK;
        }
    }

    static class AcksErrors extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_ERROR;
        }
    }

    static class AppliesKeyless extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.APPLY_KEYLESS;
        }
    }

    static class AcksStoreFailures extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_STORE_FAILURE;
        }
    }

    static class RequeuesFailedCompletions extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.REQUEUE_FAILED_COMPLETION;
        }
    }

    static class AcksBeforeCompleting extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_BEFORE_COMPLETE;
        }
    }

    static class AcksThenCompletes extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_THEN_COMPLETE;
        }
    }

    static class AcksBusy extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.ACK_BUSY;
        }
    }

    static class StopsAbruptly extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.STOP_ABRUPTLY;
        }
    }

    static class RetriesAtOnce extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.RETRY_AT_ONCE;
        }
    }

    static class NoRenewal extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NO_RENEWAL;
        }
    }

    static class RetriesDieWithTheConnection extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.RETRIES_DIE_WITH_THE_CONNECTION;
        }
    }

    static class GivesUp extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.GIVES_UP;
        }
    }

    /** Gives up after 3 s: a persistence of 5 s outlasts it, whatever the retry count. */
    static class GivesUpAfterAWhile extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.GIVES_UP_AFTER_A_WHILE;
        }

        @Override
        protected Duration persistence() {
            return Duration.ofSeconds(5);
        }

        @Override
        protected Duration patience() {
            return Duration.ofSeconds(8);
        }
    }

    static class LeavesFailedCompletionsUnacknowledged extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.LEAVES_FAILED_COMPLETION_UNACKNOWLEDGED;
        }
    }

    /** A kit on the SQS reference adapter (lease mode), broken as {@link #breakage()} says. */
    abstract static class SqsReferenceKit extends AdapterContract {
        abstract ReferenceSqsHarness.Breakage breakage();

        @Override
        protected AdapterHarness createHarness(AdapterKit kit) throws Exception {
            return new ReferenceSqsHarness(kit, breakage());
        }

        @Override
        protected Duration patience() {
            return breakage() == ReferenceSqsHarness.Breakage.NONE ? Duration.ofSeconds(40) : Duration.ofSeconds(15);
        }

        @Override
        protected Duration persistence() {
            return Duration.ofMillis(500);
        }
    }

    static class CorrectSqs extends SqsReferenceKit {
        @Override
        ReferenceSqsHarness.Breakage breakage() {
            return ReferenceSqsHarness.Breakage.NONE;
        }
    }

    static class SqsDoneLeftUnrenewed extends SqsReferenceKit {
        @Override
        ReferenceSqsHarness.Breakage breakage() {
            return ReferenceSqsHarness.Breakage.DONE_LEFT_UNRENEWED;
        }
    }

    static class SqsStaleReceiptHandle extends SqsReferenceKit {
        @Override
        ReferenceSqsHarness.Breakage breakage() {
            return ReferenceSqsHarness.Breakage.STALE_RECEIPT_HANDLE;
        }
    }

    static class SqsDeletesBeforeTheWork extends SqsReferenceKit {
        @Override
        ReferenceSqsHarness.Breakage breakage() {
            return ReferenceSqsHarness.Breakage.DELETES_BEFORE_THE_WORK;
        }
    }

    static class SqsNoVisibilityExtension extends SqsReferenceKit {
        @Override
        ReferenceSqsHarness.Breakage breakage() {
            return ReferenceSqsHarness.Breakage.NO_VISIBILITY_EXTENSION;
        }
    }

    /** About 45 s (the SQS server counts visibility in whole seconds): CI runs it. */
    @Test
    @Tag("extended")
    void theSqsReferenceAdapterPassesEveryRule() {
        Events events = KitRun.all(CorrectSqs.class);
        assertThat(events.started().count()).isEqualTo(AdapterRule.values().length);
        assertThat(KitRun.failures(events))
                .as("rules failed by the SQS reference adapter")
                .isEmpty();
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName(
            "A11 catches an SQS adapter that stops renewing a message whose work is done before its receive deletes it")
    void a11_sqsDoneLeftUnrenewed() {
        assertThat(KitRun.failedRules(SqsDoneLeftUnrenewed.class, "A11")).contains("A11");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A11 catches an SQS adapter that renews its claims but not the messages' visibility")
    void a11_sqsNoVisibilityExtension() {
        assertThat(KitRun.failedRules(SqsNoVisibilityExtension.class, "A11")).contains("A11");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A2 catches an SQS adapter that deletes a message received again with the receipt handle of its"
            + " first receive")
    void a2_sqsStaleReceiptHandle() {
        assertThat(KitRun.failedRules(SqsStaleReceiptHandle.class, "A2")).contains("A2");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A7 catches an SQS adapter that deletes a message before its work")
    void a7_sqsDeletesBeforeTheWork() {
        assertThat(KitRun.failedRules(SqsDeletesBeforeTheWork.class, "A7")).contains("A7");
    }

    @Test
    @Tag("extended")
    void theReferenceAdapterPassesEveryRule() {
        Events events = KitRun.all(Correct.class);
        assertThat(events.started().count()).isEqualTo(AdapterRule.values().length);
        assertThat(KitRun.failures(events))
                .as("rules failed by the reference adapter")
                .isEmpty();
    }

    @Test
    @Tag("extended")
    void theTransactionalReferenceAdapterPassesEveryRule() {
        Events events = KitRun.all(CorrectTransactional.class);
        assertThat(events.started().count()).isEqualTo(AdapterRule.values().length);
        assertThat(KitRun.failures(events))
                .as("rules failed by the transactional reference adapter")
                .isEmpty();
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A1 catches an adapter that runs the work without the inbox")
    void a1() {
        assertThat(KitRun.failedRules(NoDedup.class, "A1")).contains("A1");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A2 catches an adapter that acknowledges a message whose work threw")
    void a2() {
        assertThat(KitRun.failedRules(AcksFailedWork.class, "A2")).contains("A2");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A3 catches an adapter that acknowledges a message whose work threw an Error")
    void a3() {
        assertThat(KitRun.failedRules(AcksErrors.class, "A3")).contains("A3");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A4 catches an adapter that applies a message without a usable key")
    void a4() {
        assertThat(KitRun.failedRules(AppliesKeyless.class, "A4")).contains("A4");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A5 catches an adapter that acknowledges a message the store could not claim")
    void a5() {
        assertThat(KitRun.failedRules(AcksStoreFailures.class, "A5")).contains("A5");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A6 catches an adapter that requeues a message whose completion failed after the work")
    void a6() {
        assertThat(KitRun.failedRules(RequeuesFailedCompletions.class, "A6")).contains("A6");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A7 catches an adapter that acknowledges before it completes the claim")
    void a7() {
        assertThat(KitRun.failedRules(AcksBeforeCompleting.class, "A7")).contains("A7");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A14 catches an adapter that acknowledges before it completes the claim, and completes it whatever"
            + " the acknowledgement did")
    void a14() {
        assertThat(KitRun.failedRules(AcksThenCompletes.class, "A14", "A7")).containsExactly("A14");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A14 catches a transactional adapter that acknowledges inside its transaction, before the commit")
    void a14_acksBeforeCommit() {
        assertThat(KitRun.failedRules(AcksBeforeCommit.class, "A14")).contains("A14");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 catches an adapter that acknowledges a BUSY message")
    void a8() {
        assertThat(KitRun.failedRules(AcksBusy.class, "A8")).contains("A8");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A9 catches an adapter whose stop cuts the connection with a message in hand")
    void a9() {
        assertThat(KitRun.failedRules(StopsAbruptly.class, "A9")).contains("A9");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A10 catches an adapter that requeues failed work at once, without the back-off")
    void a10() {
        assertThat(KitRun.failedRules(RetriesAtOnce.class, "A10")).contains("A10");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A11 catches an adapter whose lease ends while its work runs")
    void a11() {
        assertThat(KitRun.failedRules(NoRenewal.class, "A11")).contains("A11");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A12 catches an adapter whose retries die with the connection its client recovers")
    void a12() {
        assertThat(KitRun.failedRules(RetriesDieWithTheConnection.class, "A12")).contains("A12");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A7 catches a transactional adapter that acknowledges before its transaction commits")
    void a7_acksBeforeCommit() {
        assertThat(KitRun.failedRules(AcksBeforeCommit.class, "A7")).contains("A7");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A13 catches an adapter that acknowledges a message whose transaction failed to commit")
    void a13() {
        assertThat(KitRun.failedRules(AcksFailedCommits.class, "A13")).contains("A13");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A5 catches an adapter that gives up on a store outage after a few seconds and acknowledges past")
    void a5_givesUpAfterAWhile() {
        assertThat(KitRun.failedRules(GivesUpAfterAWhile.class, "A5")).contains("A5");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A6 catches an adapter that neither acknowledges nor requeues a message whose completion failed")
    void a6_leavesUnacknowledged() {
        assertThat(KitRun.failedRules(LeavesFailedCompletionsUnacknowledged.class, "A6"))
                .contains("A6");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 catches an adapter that gives up on a BUSY message after fifteen retries and acknowledges past")
    void a8_givesUp() {
        assertThat(KitRun.failedRules(GivesUp.class, "A8")).contains("A8");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A10 catches an adapter that drops a poison message after a few seconds of attempts")
    void a10_givesUpAfterAWhile() {
        assertThat(KitRun.failedRules(GivesUpAfterAWhile.class, "A10")).contains("A10");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A8 catches an adapter that gives up on a BUSY message after a few seconds and acknowledges past")
    void a8_givesUpAfterAWhile() {
        assertThat(KitRun.failedRules(GivesUpAfterAWhile.class, "A8")).contains("A8");
    }

    @Test
    @Tag("extended")
    @Execution(ExecutionMode.CONCURRENT)
    @DisplayName("A12 catches an adapter that gives up on a BUSY message after the connection came back")
    void a12_givesUp() {
        assertThat(KitRun.failedRules(GivesUp.class, "A12")).contains("A12");
    }

    /** Every adapter rule has a test named "<id> catches …" here, and a test in the contract. */
    @Test
    void everyAdapterRuleHasATestAndASelfTestThatCatchesABrokenAdapter() {
        Set<AdapterRule> caught = EnumSet.noneOf(AdapterRule.class);
        List<Method> selfTests = new ArrayList<>(List.of(AdapterKitSelfTest.class.getDeclaredMethods()));
        selfTests.addAll(List.of(KafkaAdapterKitSelfTest.class.getDeclaredMethods()));
        for (Method method : selfTests) {
            DisplayName name = method.getAnnotation(DisplayName.class);
            if (method.isAnnotationPresent(Test.class)
                    && name != null
                    && name.value().contains(" catches ")) {
                caught.add(AdapterRule.valueOf(name.value().split(" ")[0]));
            }
        }
        assertThat(caught)
                .as("adapter rules with a self-test named '<id> catches …'")
                .isEqualTo(EnumSet.allOf(AdapterRule.class));
        Set<String> tested = new TreeSet<>();
        for (Method method : AdapterContract.class.getDeclaredMethods()) {
            DisplayName name = method.getAnnotation(DisplayName.class);
            if (method.isAnnotationPresent(Test.class) && name != null) {
                tested.add(AdapterRule.valueOf(name.value().split(" ")[0]).name());
            }
        }
        Set<String> all = new TreeSet<>();
        for (AdapterRule rule : AdapterRule.values()) {
            all.add(rule.name());
        }
        assertThat(tested).as("adapter rules with a test in AdapterContract").isEqualTo(all);
    }

    @Test
    void readme_listsEveryAdapterRuleWithItsSentence() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        for (AdapterRule rule : AdapterRule.values()) {
            assertThat(readme)
                    .as("README entry of %s", rule)
                    .contains("| " + rule.name() + " | " + rule.sentence() + " |");
        }
    }
}
