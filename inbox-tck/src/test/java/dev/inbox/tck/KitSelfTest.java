package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

/**
 * Tests the kit itself: it passes a correct store and fails deliberately broken ones with the
 * rule that each one breaks. The contract subclasses below are static nested classes, which
 * Surefire does not run on its own; only the engine test kit here runs them.
 */
class KitSelfTest {

    static class CorrectStoreKit extends InboxStoreContract {
        /** The records every store of one test shares, as instances on one table would. */
        final Map<String, ReferenceStore.Rec> shared = new HashMap<>();

        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared);
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) {
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

    /**
     * A broken kit whose stores share their records, as instances on one table do (rules R3 and
     * C9 need that); the empty store of R2 keeps records of its own.
     */
    abstract static class SharedRecordsKit extends BrokenKit {
        final Map<String, ReferenceStore.Rec> shared = new HashMap<>();

        @Override
        protected InboxStore createEmptyStore(Duration grace) {
            return new ReferenceStore(grace);
        }
    }

    /**
     * Atomic inside one instance only: each instance decides under a lock of its own over records
     * the instances share (one table), with a round trip's pause between the check and the write —
     * a store that serialises in the JVM and would pass a race of threads on one instance.
     */
    static class LocksPerInstanceKit extends SharedRecordsKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared) {
                @Override
                public synchronized ClaimResult claim(ClaimRequest request) {
                    return decideAndWrite(request); // this instance's lock, not the shared records'
                }

                @Override
                @org.jspecify.annotations.Nullable
                Rec read(String k) {
                    Rec rec = super.read(k);
                    TckSupport.pause(Duration.ofMillis(1)); // the round trip between check and write
                    return rec;
                }
            };
        }
    }

    /**
     * A new key is inserted atomically, but an expired lease is taken over by reading the record and
     * then writing the new owner unconditionally, a short round trip apart: two claimants that both
     * read the expired record both answer TAKEN_OVER. Passes C8, which races on new keys.
     */
    static class ReadThenUpdateTakeoverKit extends SharedRecordsKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    synchronized (records) {
                        if (!records.containsKey(mapKey(request.key()))) {
                            return decideAndWrite(request); // INSERT … ON CONFLICT DO NOTHING: atomic
                        }
                    }
                    return decideAndWrite(request); // SELECT, then UPDATE … WHERE key = ?: not
                }

                @Override
                @org.jspecify.annotations.Nullable
                Rec read(String k) {
                    Rec rec = super.read(k);
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000); // a fast round trip
                    return rec;
                }
            };
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

    /** Purges whatever is past expiry, ignoring grace: a late duplicate is then processed again. */
    static class PurgeIgnoresGraceKit extends BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public long purge() {
                    synchronized (records) {
                        int before = records.size();
                        long now = System.nanoTime();
                        records.values().removeIf(r -> now - r.expiresAt() >= 0);
                        return before - records.size();
                    }
                }
            };
        }
    }

    /**
     * Instances on one table that judge every record by their own grace, as the SQL stores did
     * before version 2 of their schema: the instance with the shorter grace purges and takes
     * records still inside their writer's grace.
     */
    static class InstanceGraceKit extends SharedRecordsKit {

        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared) {
                @Override
                long goneAt(Rec rec) {
                    return rec.expiresAt() + this.grace;
                }
            };
        }
    }

    /**
     * Purges in two steps without checking again in between: each run deletes the keys its
     * previous run found past grace, so a record that a claim took over since is deleted and a
     * later delivery gets in. (A gap of milliseconds inside one run was caught only when the
     * claimants happened to land in it, which a busy CI machine once made them all miss.)
     */
    static class CheckThenDeletePurgeKit extends SharedRecordsKit {

        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared) {
                private List<String> foundLastTime = List.of();

                @Override
                public long purge() {
                    synchronized (records) {
                        List<String> due = new ArrayList<>();
                        long now = System.nanoTime();
                        records.forEach((k, r) -> {
                            if (now - goneAt(r) >= 0) {
                                due.add(k);
                            }
                        });
                        List<String> deleting = foundLastTime;
                        foundLastTime = due;
                        deleting.forEach(records::remove);
                        return deleting.size();
                    }
                }
            };
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

    @Test
    @Tag("extended")
    void correctStore_passesEveryRule() {
        Events events = KitRun.all(CorrectStoreKit.class);
        assertThat(events.failed().list()).as("failures of a correct store").isEmpty();
        assertThat(events.skipped().count()).isZero();
        assertThat(events.succeeded().count()).isGreaterThanOrEqualTo(25);
    }

    @Test
    @DisplayName("C8 catches a store that is atomic only inside one instance (a Java lock)")
    void locksPerInstanceStore_failsTheRaceRule_racedAcrossInstances() {
        assertThat(KitRun.failedRules(LocksPerInstanceKit.class, "C8")).contains("C8");
    }

    @Test
    @DisplayName("C8 catches a check-then-insert store")
    void checkThenInsertStore_failsTheRaceRule() {
        assertThat(KitRun.failedRules(CheckThenInsertKit.class, "C8")).contains("C8");
    }

    @Test
    @DisplayName("C7 catches a case-folding store, naming the key")
    void caseFoldingStore_failsExactComparison_withAMessageNamingTheKey() {
        Events events = KitRun.rule(CaseFoldingKit.class, "C7");
        assertThat(KitRun.failed(events)).contains("C7");
        Throwable cause = events.failed().list().stream()
                .filter(e -> e.getTestDescriptor().getDisplayName().startsWith("C7 "))
                .findFirst()
                .orElseThrow()
                .getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .orElseThrow()
                .getThrowable()
                .orElseThrow();
        assertThat(cause.getMessage()).contains("claim of \"").contains("expected");
    }

    @Test
    @DisplayName("C7 catches a store that truncates long ids")
    void truncatingStore_failsExactComparison() {
        assertThat(KitRun.failedRules(TruncatingKit.class, "C7")).contains("C7");
    }

    /** The whole kit on the truncating store (12 s): C7 alone fails, no other rule misreads it. */
    @Test
    @Tag("extended")
    void truncatingStore_failsOnlyC7() {
        assertThat(KitRun.failed(KitRun.all(TruncatingKit.class))).containsExactly("C7");
    }

    @Test
    @DisplayName("C6 catches a store that ignores the consumer")
    void unscopedStore_failsConsumerScoping() {
        assertThat(KitRun.failedRules(UnscopedKit.class, "C6")).contains("C6");
    }

    @Test
    @DisplayName("R2 catches a purge that ignores grace")
    void r2_catchesAPurgeThatIgnoresGrace() {
        assertThat(KitRun.failedRules(PurgeIgnoresGraceKit.class, "R2")).contains("R2");
    }

    @Test
    @DisplayName("R3 catches instances that judge records by their own grace")
    void r3_catchesInstancesThatJudgeRecordsByTheirOwnGrace() {
        assertThat(KitRun.failedRules(InstanceGraceKit.class, "R3")).contains("R3");
    }

    /** The whole kit on those instances (12 s): R3 alone fails. */
    @Test
    @Tag("extended")
    void instanceGrace_failsOnlyR3() {
        assertThat(KitRun.failed(KitRun.all(InstanceGraceKit.class))).containsExactly("R3");
    }

    @Test
    @DisplayName("C9 catches a takeover that reads the expired record, then updates it unconditionally")
    void c9_catchesATakeoverThatReadsThenUpdates() {
        assertThat(KitRun.failedRules(ReadThenUpdateTakeoverKit.class, "C9")).contains("C9");
    }

    @Test
    @DisplayName("C9 catches a purge that deletes a record taken over meanwhile")
    void c9_catchesAPurgeThatDeletesARecordTakenOverMeanwhile() {
        assertThat(KitRun.failedRules(CheckThenDeletePurgeKit.class, "C9")).contains("C9");
    }

    @Test
    @DisplayName("D1 catches a store that ignores grace when claiming")
    void d1_catchesAStoreThatIgnoresGraceWhenClaiming() {
        assertThat(KitRun.failedRules(GraceBlindKit.class, "D1")).contains("D1");
    }

    @Test
    @DisplayName("D1 catches a store that hides takeovers")
    void d1_catchesAStoreThatHidesTakeovers() {
        assertThat(KitRun.failedRules(SilentTakeoverKit.class, "D1")).contains("D1");
    }

    @Test
    void correctGuard_passes() {
        Events events = KitRun.all(CorrectGuardKit.class);
        assertThat(events.failed().list()).isEmpty();
        assertThat(events.succeeded().count()).isEqualTo(5);
    }

    @Test
    @DisplayName("O1 catches a racy sequence guard")
    void racyGuard_failsTheSequenceRace() {
        assertThat(KitRun.failed(KitRun.all(RacyGuardKit.class))).containsExactly("O1");
    }

    /** Every rule has at least one test, and every test names a rule. */
    @Test
    void everyRuleIsVerified_andEveryTestNamesItsRule() {
        Set<String> covered = new TreeSet<>();
        List<String> unnamed = new ArrayList<>();
        for (Class<?> contract : List.of(
                InboxStoreContract.class,
                InboxAdminRules.class,
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
