package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.tck.ReferenceHttpHarness.Breakage;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import dev.inbox.tck.http.HttpRule;
import dev.inbox.tck.http.TransactionalHttpContract;
import dev.inbox.tck.http.TransactionalHttpHarness;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

/**
 * Tests the HTTP kit itself: it passes the reference integration ({@link ReferenceHttpHarness}, the
 * JDK's HTTP server over an inbox on the reference store; for W8, {@link
 * ReferenceTransactionalHttpHarness} on H2) and fails each deliberately broken one on the rule it
 * breaks. The kit subclasses below are static nested classes, which Surefire does not
 * run on its own; only the engine test kit here runs them (a few seconds each).
 */
class HttpKitSelfTest {

    /** The kit on the reference integration, broken as {@link #breakage()} says. */
    abstract static class ReferenceKit extends HttpContract {
        abstract Breakage breakage();

        @Override
        protected HttpHarness createHarness(HttpKit kit) throws IOException {
            return new ReferenceHttpHarness(kit, new ReferenceStore(Duration.ofMinutes(1)), breakage());
        }
    }

    static class Correct extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NONE;
        }
    }

    static class DropsLocation extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.DROPS_LOCATION;
        }
    }

    static class CheckThenAct extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.CHECK_THEN_ACT;
        }
    }

    static class RawBodyFingerprint extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.RAW_BODY_FINGERPRINT;
        }
    }

    static class KeepsServerErrors extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.KEEPS_SERVER_ERRORS;
        }
    }

    static class Unscoped extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.UNSCOPED;
        }
    }

    static class NoKeyLimit extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NO_KEY_LIMIT;
        }
    }

    static class NoBodyLimit extends ReferenceKit {
        @Override
        Breakage breakage() {
            return Breakage.NO_BODY_LIMIT;
        }
    }

    /** The transactional rule on the transactional reference, broken as {@link #breakage()} says. */
    abstract static class TransactionalReferenceKit extends TransactionalHttpContract {
        abstract ReferenceTransactionalHttpHarness.Breakage breakage();

        @Override
        protected TransactionalHttpHarness createHarness(HttpKit kit) throws Exception {
            return new ReferenceTransactionalHttpHarness(kit, breakage());
        }
    }

    static class TransactionalCorrect extends TransactionalReferenceKit {
        @Override
        ReferenceTransactionalHttpHarness.Breakage breakage() {
            return ReferenceTransactionalHttpHarness.Breakage.NONE;
        }
    }

    static class EffectOutsideTransaction extends TransactionalReferenceKit {
        @Override
        ReferenceTransactionalHttpHarness.Breakage breakage() {
            return ReferenceTransactionalHttpHarness.Breakage.EFFECT_OUTSIDE_TRANSACTION;
        }
    }

    @Test
    void theReferenceIntegrationPassesEveryRule() {
        Events events = KitRun.all(Correct.class);
        assertThat(events.started().count())
                .isEqualTo(rulesTestedIn(HttpContract.class).size());
        assertThat(KitRun.failures(events))
                .as("rules failed by the reference integration")
                .isEmpty();
        Events transactional = KitRun.all(TransactionalCorrect.class);
        assertThat(transactional.started().count())
                .isEqualTo(rulesTestedIn(TransactionalHttpContract.class).size());
        assertThat(KitRun.failures(transactional))
                .as("rules failed by the transactional reference integration")
                .isEmpty();
    }

    @Test
    @DisplayName("W1 catches an integration that replays without the Location header")
    void w1_dropsLocation() {
        assertThat(KitRun.failedRules(DropsLocation.class, "W1")).contains("W1");
    }

    @Test
    @DisplayName("W2 catches an integration that looks the key up, runs the handler, and records it after")
    void w2_checkThenAct() {
        assertThat(KitRun.failedRules(CheckThenAct.class, "W2")).contains("W2");
    }

    @Test
    @DisplayName("W3 catches an integration that fingerprints a JSON body's raw bytes")
    void w3_rawBodyFingerprint() {
        assertThat(KitRun.failedRules(RawBodyFingerprint.class, "W3")).contains("W3");
    }

    @Test
    @DisplayName("W4 catches an integration that keeps a 5xx for replays")
    void w4_keepsServerErrors() {
        assertThat(KitRun.failedRules(KeepsServerErrors.class, "W4")).contains("W4");
    }

    @Test
    @DisplayName("W5 catches an integration whose keys are not scoped by the principal")
    void w5_unscoped() {
        assertThat(KitRun.failedRules(Unscoped.class, "W5")).contains("W5");
    }

    @Test
    @DisplayName("W6 catches an integration that accepts a key of any length")
    void w6_noKeyLimit() {
        assertThat(KitRun.failedRules(NoKeyLimit.class, "W6")).contains("W6");
    }

    @Test
    @DisplayName("W7 catches an integration that passes a body of any length to the handler")
    void w7_noBodyLimit() {
        assertThat(KitRun.failedRules(NoBodyLimit.class, "W7")).contains("W7");
    }

    @Test
    @DisplayName("W8 catches an integration that commits the handler's writes before the response is kept")
    void w8_effectOutsideTransaction() {
        assertThat(KitRun.failedRules(EffectOutsideTransaction.class, "W8")).contains("W8");
    }

    /** Every HTTP rule has a test in one of the two contracts and a test named "<id> catches …" here. */
    @Test
    void everyHttpRuleHasATestAndASelfTestThatCatchesABrokenIntegration() {
        Set<HttpRule> caught = EnumSet.noneOf(HttpRule.class);
        for (Method method : HttpKitSelfTest.class.getDeclaredMethods()) {
            DisplayName name = method.getAnnotation(DisplayName.class);
            if (method.isAnnotationPresent(Test.class)
                    && name != null
                    && name.value().contains(" catches ")) {
                caught.add(HttpRule.valueOf(name.value().split(" ")[0]));
            }
        }
        assertThat(caught)
                .as("HTTP rules with a self-test named '<id> catches …'")
                .isEqualTo(EnumSet.allOf(HttpRule.class));
        Set<String> tested = new TreeSet<>(rulesTestedIn(HttpContract.class));
        tested.addAll(rulesTestedIn(TransactionalHttpContract.class));
        Set<String> all = new TreeSet<>();
        for (HttpRule rule : HttpRule.values()) {
            all.add(rule.name());
        }
        assertThat(tested)
                .as("HTTP rules with a test in HttpContract or TransactionalHttpContract")
                .isEqualTo(all);
    }

    private static Set<String> rulesTestedIn(Class<?> contract) {
        Set<String> tested = new TreeSet<>();
        for (Method method : contract.getDeclaredMethods()) {
            DisplayName name = method.getAnnotation(DisplayName.class);
            if (method.isAnnotationPresent(Test.class) && name != null) {
                tested.add(HttpRule.valueOf(name.value().split(" ")[0]).name());
            }
        }
        return tested;
    }

    @Test
    void readme_listsEveryHttpRuleWithItsSentence() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        for (HttpRule rule : HttpRule.values()) {
            assertThat(readme)
                    .as("README entry of %s", rule)
                    .contains("| " + rule.name() + " | " + rule.sentence() + " |");
        }
    }
}
