package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One deliberately broken store per rule, each of which the kit must fail on that rule (the
 * reactive-streams TCK's standard: a rule never shown to fail proves nothing). Each self-test is
 * named {@code <id> catches <what is broken>}; {@link #everyRuleHasASelfTestThatCatchesABrokenStore()}
 * fails the build when a rule has none.
 */
class RuleSelfTest {

    /**
     * Rules allowed to have no self-test yet: none. A new rule needs its broken store before it
     * may join the kit.
     */
    static final Set<TckRule> WITHOUT_SELF_TEST_YET = EnumSet.noneOf(TckRule.class);

    /** Answers BUSY for a key nobody holds. */
    static class BusyForFreshKeys extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    return read(mapKey(request.key())) == null ? ClaimResult.busy() : super.claim(request);
                }
            };
        }
    }

    /** Lets a claim overwrite a COMPLETED record. */
    static class ReclaimsCompleted extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = super.claim(request);
                    if (result.status() == ClaimStatus.DUPLICATE) {
                        records.remove(mapKey(request.key()));
                        return super.claim(request);
                    }
                    return result;
                }
            };
        }
    }

    /** Takes another owner's live lease. */
    static class StealsLiveLeases extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = super.claim(request);
                    if (result.equals(ClaimResult.busy())) {
                        records.remove(mapKey(request.key()));
                        return super.claim(request);
                    }
                    return result;
                }
            };
        }
    }

    /** Never takes an expired lease over. */
    static class NoTakeover extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ReferenceStore.Rec held = read(mapKey(request.key()));
                    if (held != null
                            && !held.completed()
                            && !held.owner().equals(request.owner().value())
                            && System.nanoTime() - goneAt(held) < 0) {
                        return ClaimResult.busy();
                    }
                    return super.claim(request);
                }
            };
        }
    }

    /** Treats its own owner's retry as another delivery. */
    static class RetryIsBusy extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ReferenceStore.Rec held = read(mapKey(request.key()));
                    if (held != null
                            && !held.completed()
                            && held.owner().equals(request.owner().value())) {
                        return ClaimResult.busy();
                    }
                    return super.claim(request);
                }
            };
        }
    }

    /** Never compares fingerprints. */
    static class IgnoresFingerprints extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = super.claim(request);
                    return result.status() == ClaimStatus.DUPLICATE
                            ? ClaimResult.duplicate(result.isLate(), FingerprintCheck.NOT_COMPARED)
                            : result;
                }
            };
        }
    }

    /** Says a completion succeeded without recording it. */
    static class CompleteRecordsNothing extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
                    return read(mapKey(key)) != null;
                }
            };
        }
    }

    /** Completes for whoever asks. */
    static class CompleteIgnoresOwner extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
                    ReferenceStore.Rec held = read(mapKey(key));
                    return held != null && super.complete(key, OwnerToken.of(held.owner()), retention);
                }
            };
        }
    }

    /** Says a release succeeded but keeps the record. */
    static class ReleaseKeepsRecord extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean release(InboxKey key, OwnerToken owner) {
                    ReferenceStore.Rec held = read(mapKey(key));
                    return held != null && held.owner().equals(owner.value()) && !held.completed();
                }
            };
        }
    }

    /** Releases for whoever asks, COMPLETED records too. */
    static class ReleaseIgnoresOwner extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean release(InboxKey key, OwnerToken owner) {
                    return records.remove(mapKey(key)) != null;
                }
            };
        }
    }

    /** Answers a batch completion true for every item, completing each for whoever holds it. */
    static class CompleteAllIgnoresOwner extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
                    List<Boolean> answers = new ArrayList<>();
                    for (HeldKey item : held) {
                        ReferenceStore.Rec rec = read(mapKey(item.key()));
                        if (rec != null) {
                            super.complete(item.key(), OwnerToken.of(rec.owner()), retention);
                        }
                        answers.add(true);
                    }
                    return answers;
                }
            };
        }
    }

    /** Says a renewal succeeded but leaves the lease as it was. */
    static class RenewExtendsNothing extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
                    ReferenceStore.Rec held = read(mapKey(key));
                    return held != null && held.owner().equals(owner.value()) && !held.completed();
                }
            };
        }
    }

    /** Renews whoever holds the key, COMPLETED records too (turning them back into leases). */
    static class RenewIgnoresOwner extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
                    synchronized (records) {
                        ReferenceStore.Rec held = records.get(mapKey(key));
                        if (held == null) {
                            return false;
                        }
                        long expiresAt = System.nanoTime() + lease.toNanos();
                        records.put(
                                mapKey(key),
                                new ReferenceStore.Rec(
                                        held.owner(), false, expiresAt, expiresAt + grace, held.fingerprint()));
                        return true;
                    }
                }
            };
        }
    }

    /** Keeps results as UTF-8 text, the way a {@code text} column or a string codec would. */
    static class ResultsAsText extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
                    byte[] text = new String(result, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
                    return super.complete(key, owner, retention, text.length > MAX_RESULT_BYTES ? result : text);
                }
            };
        }
    }

    /** Checks the result's size after completing the record. */
    static class LimitCheckedAfterTheWrite extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
                    if (result != null && result.length > MAX_RESULT_BYTES) {
                        super.complete(key, owner, retention);
                    }
                    return super.complete(key, owner, retention, result);
                }
            };
        }
    }

    /** Never flags a duplicate as late. */
    static class NeverLate extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    ClaimResult result = super.claim(request);
                    return result.isLate() ? ClaimResult.duplicate(false, result.fingerprint()) : result;
                }
            };
        }
    }

    /** Answers a batch in the wrong order. */
    static class BatchOutOfOrder extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
                    List<ClaimResult> results = new ArrayList<>(super.claimAll(requests));
                    java.util.Collections.reverse(results);
                    return results;
                }
            };
        }
    }

    /** Lets null through to a NullPointerException instead of rejecting it. */
    static class NoArgumentChecks extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    mapKey(request.key()); // NullPointerException for null
                    return super.claim(request);
                }
            };
        }
    }

    /** Keeps working after close. */
    static class IgnoresClose extends KitSelfTest.BrokenKit {
        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace) {
                @Override
                public void close() {}
            };
        }
    }

    @Test
    @DisplayName("C1 catches a store that answers BUSY for a fresh key")
    void c1() {
        assertThat(KitRun.failedRules(BusyForFreshKeys.class, "C1")).contains("C1");
    }

    @Test
    @DisplayName("C2 catches a store that lets a claim overwrite a COMPLETED record")
    void c2() {
        assertThat(KitRun.failedRules(ReclaimsCompleted.class, "C2")).contains("C2");
    }

    @Test
    @DisplayName("C3 catches a store that takes another owner's live lease")
    void c3() {
        assertThat(KitRun.failedRules(StealsLiveLeases.class, "C3")).contains("C3");
    }

    @Test
    @DisplayName("C4 catches a store that never takes an expired lease over")
    void c4() {
        assertThat(KitRun.failedRules(NoTakeover.class, "C4")).contains("C4");
    }

    @Test
    @DisplayName("C5 catches a store that answers its own owner's retry BUSY")
    void c5() {
        assertThat(KitRun.failedRules(RetryIsBusy.class, "C5")).contains("C5");
    }

    @Test
    @DisplayName("F1 catches a store that never compares fingerprints")
    void f1() {
        assertThat(KitRun.failedRules(IgnoresFingerprints.class, "F1")).contains("F1");
    }

    @Test
    @DisplayName("P1 catches a store whose completion records nothing")
    void p1() {
        assertThat(KitRun.failedRules(CompleteRecordsNothing.class, "P1")).contains("P1");
    }

    @Test
    @DisplayName("P2 catches a store that completes for any owner")
    void p2() {
        assertThat(KitRun.failedRules(CompleteIgnoresOwner.class, "P2")).contains("P2");
    }

    @Test
    @DisplayName("P3 catches a store whose release keeps the record")
    void p3() {
        assertThat(KitRun.failedRules(ReleaseKeepsRecord.class, "P3")).contains("P3");
    }

    @Test
    @DisplayName("P4 catches a store that releases for any owner, COMPLETED records too")
    void p4() {
        assertThat(KitRun.failedRules(ReleaseIgnoresOwner.class, "P4")).contains("P4");
    }

    @Test
    @DisplayName("B2 catches a store whose batch completion ignores the owners")
    void b2() {
        assertThat(KitRun.failedRules(CompleteAllIgnoresOwner.class, "B2")).contains("B2");
    }

    @Test
    @DisplayName("H1 catches a store whose renewal extends nothing")
    void h1() {
        assertThat(KitRun.failedRules(RenewExtendsNothing.class, "H1")).contains("H1");
    }

    @Test
    @DisplayName("H2 catches a store that renews for any owner, COMPLETED records too")
    void h2() {
        assertThat(KitRun.failedRules(RenewIgnoresOwner.class, "H2")).contains("H2");
    }

    @Test
    @DisplayName("S1 catches a store that keeps results as text")
    void s1() {
        assertThat(KitRun.failedRules(ResultsAsText.class, "S1")).contains("S1");
    }

    @Test
    @DisplayName("S2 catches a store that checks the result's size after completing the record")
    void s2() {
        assertThat(KitRun.failedRules(LimitCheckedAfterTheWrite.class, "S2")).contains("S2");
    }

    @Test
    @DisplayName("R1 catches a store that never flags a late duplicate")
    void r1() {
        assertThat(KitRun.failedRules(NeverLate.class, "R1")).contains("R1");
    }

    @Test
    @DisplayName("B1 catches a store that answers a batch out of order")
    void b1() {
        assertThat(KitRun.failedRules(BatchOutOfOrder.class, "B1")).contains("B1");
    }

    @Test
    @DisplayName("E1 catches a store that lets null through to a NullPointerException")
    void e1() {
        assertThat(KitRun.failedRules(NoArgumentChecks.class, "E1")).contains("E1");
    }

    @Test
    @DisplayName("L1 catches a store that keeps working after close")
    void l1() {
        assertThat(KitRun.failedRules(IgnoresClose.class, "L1")).contains("L1");
    }

    /** Every rule id has a test named "<id> catches …" here or in {@link KitSelfTest}, bar the listed gaps. */
    @Test
    void everyRuleHasASelfTestThatCatchesABrokenStore() {
        Set<TckRule> caught = EnumSet.noneOf(TckRule.class);
        for (Class<?> selfTests : List.of(
                RuleSelfTest.class,
                AdminRuleSelfTest.class,
                KitSelfTest.class,
                NetworkRuleSelfTest.class,
                TransactionalRuleSelfTest.class,
                KeyPropertiesSelfTest.class)) {
            for (Method method : selfTests.getDeclaredMethods()) {
                DisplayName name = method.getAnnotation(DisplayName.class);
                if (method.isAnnotationPresent(Test.class)
                        && name != null
                        && name.value().contains(" catches ")) {
                    caught.add(TckRule.valueOf(name.value().split(" ")[0]));
                }
            }
        }
        Set<TckRule> missing = EnumSet.allOf(TckRule.class);
        missing.removeAll(caught);
        assertThat(missing)
                .as("rules without a self-test named '<id> catches …' (only the documented gaps may be here)")
                .isEqualTo(WITHOUT_SELF_TEST_YET);
    }
}
