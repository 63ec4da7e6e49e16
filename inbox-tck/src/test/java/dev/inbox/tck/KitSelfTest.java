package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * Tests the kit itself: it passes a correct store and fails deliberately broken ones with the
 * rule that each one breaks. The contract subclasses below are static nested classes, which
 * Surefire does not run on its own; only the engine test kit here runs them.
 */
class KitSelfTest {

    static class CorrectStoreKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace);
        }

        @Override
        protected int raceRounds() {
            return 200;
        }
    }

    /** A kit run against a broken store: short, since one failing rule is all it must show. */
    abstract static class BrokenKit extends InboxStoreContract {
        @Override
        protected int raceRounds() {
            return 20;
        }

        @Override
        protected int largeBatchSize() {
            return 50;
        }
    }

    /** Reads and writes under separate locks: the check-then-insert race of the problem statement. */
    static class CheckThenInsertKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = decideAndWrite(request); // no lock around the decision
                    return result;
                }

                @Override
                @org.jspecify.annotations.Nullable
                Rec read(String k) {
                    Rec rec = super.read(k);
                    Thread.yield();
                    TckSupport.pause(Duration.ofMillis(1)); // widen the window between check and insert
                    return rec;
                }
            };
        }
    }

    /** Folds case, as a default MySQL collation would. */
    static class CaseFoldingKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                String mapKey(InboxKey key) {
                    return super.mapKey(key).toLowerCase(Locale.ROOT);
                }
            };
        }
    }

    /** Truncates ids to 255 characters, as a VARCHAR(255) with warnings would. */
    static class TruncatingKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                String mapKey(InboxKey key) {
                    String id = key.id();
                    return key.consumer() + '\0' + (id.length() > 255 ? id.substring(0, 255) : id);
                }
            };
        }
    }

    /** Ignores the consumer: one id applied once across all consumers. */
    static class UnscopedKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                String mapKey(InboxKey key) {
                    return key.id();
                }
            };
        }
    }

    /** Treats a record past expiry as absent at once: the grace window is ignored when claiming. */
    static class GraceBlindKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(Duration.ZERO);
        }
    }

    /** Reports a takeover of an expired lease as a plain acquisition (the takeover metric undercounts). */
    static class SilentTakeoverKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = super.claim(request);
                    return result.isTakeover() ? ClaimResult.acquired() : result;
                }
            };
        }
    }

    static class CorrectGuardKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return new ReferenceGuard(false);
        }
    }

    /** Reads the last number and writes the next one without atomicity. */
    static class RacyGuardKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return new ReferenceGuard(true);
        }

        @Override
        protected int raceRounds() {
            return 30;
        }
    }

    static final class ReferenceGuard implements SequenceGuard {
        private final Map<InboxKey, Long> last = new HashMap<>();
        private final boolean racy;
        private volatile boolean closed;

        ReferenceGuard(boolean racy) {
            this.racy = racy;
        }

        @Override
        public SequenceResult advance(InboxKey entity, long seq) {
            SequenceGuard.validate(entity, seq);
            if (closed) {
                throw new IllegalStateException("closed");
            }
            if (racy) {
                Long seen;
                synchronized (last) {
                    seen = last.get(entity);
                }
                TckSupport.pause(Duration.ofMillis(1));
                SequenceResult result = SequenceResult.decide(seq, seen == null ? 1 : seen + 1);
                if (result.isApplied()) {
                    synchronized (last) {
                        last.put(entity, seq);
                    }
                }
                return result;
            }
            synchronized (last) {
                Long seen = last.get(entity);
                SequenceResult result = SequenceResult.decide(seq, seen == null ? 1 : seen + 1);
                if (result.isApplied()) {
                    last.put(entity, seq);
                }
                return result;
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static Events run(Class<?> kit) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(kit))
                .execute()
                .testEvents();
    }

    private static Set<String> failedRules(Events events) {
        Set<String> rules = new TreeSet<>();
        for (Event event : events.failed().list()) {
            rules.add(event.getTestDescriptor().getDisplayName().substring(0, 2));
        }
        return rules;
    }

    @Test
    void correctStore_passesEveryRule() {
        Events events = run(CorrectStoreKit.class);
        assertThat(events.failed().list()).as("failures of a correct store").isEmpty();
        assertThat(events.skipped().count()).isZero();
        assertThat(events.succeeded().count()).isGreaterThanOrEqualTo(25);
    }

    @Test
    void checkThenInsertStore_failsTheRaceRule() {
        assertThat(failedRules(run(CheckThenInsertKit.class))).contains("C8");
    }

    @Test
    void caseFoldingStore_failsExactComparison_withAMessageNamingTheKey() {
        Events events = run(CaseFoldingKit.class);
        assertThat(failedRules(events)).containsExactly("C7");
        Throwable cause = events.failed()
                .list()
                .get(0)
                .getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .orElseThrow()
                .getThrowable()
                .orElseThrow();
        assertThat(cause.getMessage()).contains("claim of \"").contains("expected");
    }

    @Test
    void truncatingStore_failsExactComparison() {
        assertThat(failedRules(run(TruncatingKit.class))).containsExactly("C7");
    }

    @Test
    void unscopedStore_failsConsumerScoping() {
        assertThat(failedRules(run(UnscopedKit.class))).contains("C6");
    }

    @Test
    void d1_catchesAStoreThatIgnoresGraceWhenClaiming() {
        assertThat(failedRules(run(GraceBlindKit.class))).contains("D1");
    }

    @Test
    void d1_catchesAStoreThatHidesTakeovers() {
        assertThat(failedRules(run(SilentTakeoverKit.class))).contains("D1");
    }

    @Test
    void correctGuard_passes() {
        Events events = run(CorrectGuardKit.class);
        assertThat(events.failed().list()).isEmpty();
        assertThat(events.succeeded().count()).isEqualTo(5);
    }

    @Test
    void racyGuard_failsTheSequenceRace() {
        assertThat(failedRules(run(RacyGuardKit.class))).containsExactly("O1");
    }

    /** Every rule has at least one test, and every test names a rule. */
    @Test
    void everyRuleIsVerified_andEveryTestNamesItsRule() {
        Set<String> covered = new TreeSet<>();
        List<String> unnamed = new ArrayList<>();
        for (Class<?> contract : List.of(
                InboxStoreContract.class,
                SequenceGuardContract.class,
                TransactionalStoreContract.class,
                StoreFailureContract.class,
                StoreFaultContract.class)) {
            for (Method method : contract.getDeclaredMethods()) {
                if (!method.isAnnotationPresent(Test.class)) {
                    continue;
                }
                DisplayName name = method.getAnnotation(DisplayName.class);
                String id = name == null ? "" : name.value().split(" ")[0];
                try {
                    TckRule.valueOf(id);
                    covered.add(id);
                } catch (IllegalArgumentException e) {
                    unnamed.add(contract.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertThat(unnamed)
                .as("tests whose display name does not start with a rule id")
                .isEmpty();
        Set<String> all = new TreeSet<>();
        for (TckRule rule : TckRule.values()) {
            all.add(rule.name());
        }
        assertThat(covered).as("rules with at least one test").isEqualTo(all);
    }

    @Test
    void readme_listsEveryRuleWithItsSentence() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        for (TckRule rule : TckRule.values()) {
            assertThat(readme)
                    .as("README entry of %s", rule)
                    .contains("| " + rule.name() + " | " + rule.sentence() + " |");
        }
    }
}
