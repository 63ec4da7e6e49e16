package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordState;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One deliberately broken admin per rule M1 to M7, each of which the kit must fail on that rule.
 * Counted by {@link RuleSelfTest#everyRuleHasASelfTestThatCatchesABrokenStore()}.
 */
class AdminRuleSelfTest {

    /** A reference store whose admin is replaced by {@code admin(store)}. */
    abstract static class BrokenAdminKit extends KitSelfTest.BrokenKit {
        final Map<String, ReferenceStore.Rec> shared = new java.util.HashMap<>();

        abstract InboxAdmin admin(ReferenceStore store);

        @Override
        protected InboxStore createStore(Duration grace) {
            return new ReferenceStore(grace, shared) {
                @Override
                public InboxAdmin admin() {
                    return BrokenAdminKit.this.admin(this);
                }
            };
        }
    }

    /** Shows every record as IN_PROGRESS, whatever it is. */
    static class CompletedShownHeld extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                RecordView view(InboxKey key, ReferenceStore.Rec rec, long now) {
                    RecordView v = super.view(key, rec, now);
                    return new RecordView(
                            v.key(),
                            RecordState.IN_PROGRESS,
                            v.owner(),
                            v.expiresAt(),
                            v.purgeAfter(),
                            v.fingerprint(),
                            v.resultBytes());
                }
            };
        }
    }

    /** Judges state by the record's kind only, never by the clock. */
    static class NoClock extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                RecordView view(InboxKey key, ReferenceStore.Rec rec, long now) {
                    RecordView v = super.view(key, rec, now);
                    RecordState state = rec.completed() ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
                    return new RecordView(
                            v.key(), state, v.owner(), v.expiresAt(), v.purgeAfter(), v.fingerprint(), v.resultBytes());
                }
            };
        }
    }

    /** Pages in UTF-16 order, the order of Java's String.compareTo. */
    static class Utf16Pages extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                public List<RecordView> stuck(StuckQuery query) {
                    List<RecordView> all =
                            new ArrayList<>(super.stuck(query.withAfter(null).withLimit(1000)));
                    all.sort(Comparator.comparing(r -> r.key().id()));
                    List<RecordView> page = new ArrayList<>();
                    for (RecordView r : all) {
                        if ((query.after() == null || r.key().id().compareTo(query.after()) > 0)
                                && page.size() < query.limit()) {
                            page.add(r);
                        }
                    }
                    return page;
                }
            };
        }
    }

    /** Counts the records of every consumer. */
    static class CountsEveryConsumer extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                public RecordCounts count(String consumer) {
                    InboxKey.validate(consumer, "consumer");
                    RecordCounts counts = RecordCounts.NONE;
                    long now = System.nanoTime();
                    for (Map.Entry<InboxKey, ReferenceStore.Rec> e : snapshot().entrySet()) {
                        counts = counts.plus(view(e.getKey(), e.getValue(), now).state());
                    }
                    return counts;
                }
            };
        }
    }

    /** Releases a lease by ending it, which leaves its owner free to complete. */
    static class ReleaseEndsTheLeaseOnly extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                public boolean releaseLease(InboxKey key) {
                    synchronized (store.records) {
                        ReferenceStore.Rec rec = store.records.get(store.mapKey(key));
                        if (rec == null || rec.completed() || System.nanoTime() - rec.goneAt() >= 0) {
                            return false;
                        }
                        long now = System.nanoTime();
                        store.records.put(
                                store.mapKey(key),
                                new ReferenceStore.Rec(rec.owner(), false, now, now + store.grace, rec.fingerprint()));
                        return true;
                    }
                }

                @Override
                public Optional<RecordView> inspect(InboxKey key) {
                    Optional<RecordView> v = super.inspect(key);
                    return v.filter(r -> r.state() != RecordState.LEASE_ENDED);
                }
            };
        }
    }

    /** Forgets the id under every consumer. */
    static class ForgetsEveryConsumer extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                public boolean forget(InboxKey key) {
                    boolean any = false;
                    for (InboxKey k : snapshot().keySet()) {
                        if (k.id().equals(key.id())) {
                            any |= super.forget(k);
                        }
                    }
                    return any;
                }
            };
        }
    }

    /** Checks no argument: nulls reach the map as NullPointerExceptions. */
    static class NoAdminArgumentChecks extends BrokenAdminKit {
        @Override
        InboxAdmin admin(ReferenceStore store) {
            return store.new ReferenceAdmin() {
                @Override
                public RecordCounts count(String consumer) {
                    return consumer.isEmpty() ? RecordCounts.NONE : super.count(consumer.substring(0, 1));
                }
            };
        }
    }

    @Test
    @DisplayName("M1 catches an admin that shows a COMPLETED record as IN_PROGRESS")
    void m1() {
        assertThat(KitRun.failedRules(CompletedShownHeld.class, "M1")).contains("M1");
    }

    @Test
    @DisplayName("M2 catches an admin that judges states without the store's clock")
    void m2() {
        assertThat(KitRun.failedRules(NoClock.class, "M2")).contains("M2");
    }

    @Test
    @DisplayName("M3 catches an admin that pages in UTF-16 order instead of UTF-8 byte order")
    void m3() {
        assertThat(KitRun.failedRules(Utf16Pages.class, "M3")).contains("M3");
    }

    @Test
    @DisplayName("M4 catches an admin that counts every consumer's records")
    void m4() {
        assertThat(KitRun.failedRules(CountsEveryConsumer.class, "M4")).contains("M4");
    }

    @Test
    @DisplayName("M5 catches an admin that releases a lease by ending it, leaving the owner free to complete")
    void m5() {
        assertThat(KitRun.failedRules(ReleaseEndsTheLeaseOnly.class, "M5")).contains("M5");
    }

    @Test
    @DisplayName("M6 catches an admin that forgets the id under every consumer")
    void m6() {
        assertThat(KitRun.failedRules(ForgetsEveryConsumer.class, "M6")).contains("M6");
    }

    @Test
    @DisplayName("M7 catches an admin that takes an empty or over-long consumer name")
    void m7() {
        assertThat(KitRun.failedRules(NoAdminArgumentChecks.class, "M7")).contains("M7");
    }
}
