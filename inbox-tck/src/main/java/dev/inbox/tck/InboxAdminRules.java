package dev.inbox.tck;

import static dev.inbox.tck.TckSupport.pause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordState;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rules M1 to M7: the operator's operations of {@link InboxAdmin}, run by {@link
 * InboxStoreContract} on every store (it implements this interface; a store's test does not). The times a record shows are the store's; the kit compares
 * them with its own clock only within {@link #CLOCK_TOLERANCE}, so it runs against a server on
 * another machine as long as the clocks are roughly set.
 */
public interface InboxAdminRules {

    /** How far the store's clock and the kit's may differ when a rule compares a record's times with now. */
    Duration CLOCK_TOLERANCE = Duration.ofSeconds(5);

    /** What the rules need of the contract that runs them. */
    interface Fixture {
        /** The store under test. */
        InboxStore store();

        /** This test's own consumer. */
        String consumer();

        /** The short duration that leases and retentions of these rules last. */
        Duration timeUnit();

        /** The grace of {@link #store()}. */
        Duration grace();

        /** Another store, sharing the first one's records, whose records stay {@code grace} past expiry. */
        InboxStore storeWithGrace(Duration grace) throws Exception;
    }

    /** The fixture of the running test. */
    Fixture adminFixture();

    @Test
    @DisplayName("M1 inspect shows a record as stored (state, owner, lease end, purge time, fingerprint,"
            + " result size), and nothing for an absent key, another consumer's or one that differs in case")
    default void m1_inspectShowsTheRecord() {
        Fixture f = adminFixture();
        InboxAdmin admin = f.store().admin();
        Duration lease = Duration.ofMinutes(10);
        OwnerToken owner = OwnerToken.random();
        Instant before = Instant.now();
        claim(f, ClaimRequest.of(key(f, "m1"), owner, lease).withFingerprint("fp-m1"));
        RecordView held = admin.inspect(key(f, "m1")).orElseThrow(() -> new AssertionError("no record of m1"));
        assertThat(held.key()).isEqualTo(key(f, "m1"));
        assertThat(held.state()).as("a live lease").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(held.owner()).as("owner").isEqualTo(owner.value());
        assertThat(held.fingerprint()).as("fingerprint").isEqualTo("fp-m1");
        assertThat(held.resultBytes())
                .as("result size of an IN_PROGRESS record")
                .isNull();
        assertAround(held.expiresAt(), before.plus(lease), "lease end");
        assertThat(Duration.between(held.expiresAt(), held.purgeAfter()))
                .as("purge time minus lease end: the store's grace")
                .isBetween(f.grace().minus(Duration.ofSeconds(1)), f.grace().plus(Duration.ofSeconds(1)));

        Duration retention = Duration.ofMinutes(20);
        assertThat(f.store().complete(key(f, "m1"), owner, retention, new byte[] {1, 2, 3, 0, 5}))
                .isTrue();
        RecordView done = admin.inspect(key(f, "m1")).orElseThrow(() -> new AssertionError("no record of m1"));
        assertThat(done.state()).as("completed").isEqualTo(RecordState.COMPLETED);
        assertThat(done.owner())
                .as("owner of the completed record (null only where the store keeps no token with it)")
                .isIn(owner.value(), null);
        assertThat(done.resultBytes()).as("result size").isEqualTo(5);
        assertAround(done.expiresAt(), Instant.now().plus(retention), "retention end");

        OwnerToken other = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "m1-plain"), other, lease));
        assertThat(f.store().complete(key(f, "m1-plain"), other, retention)).isTrue();
        RecordView plain = admin.inspect(key(f, "m1-plain")).orElseThrow();
        assertThat(plain.resultBytes())
                .as("result size of a record completed without one")
                .isNull();
        assertThat(plain.fingerprint())
                .as("fingerprint of a record claimed without one")
                .isNull();

        assertThat(admin.inspect(key(f, "m1-absent"))).as("a key never claimed").isEmpty();
        assertThat(admin.inspect(key(f, "M1"))).as("the key in upper case").isEmpty();
        assertThat(admin.inspect(key(f, "m"))).as("a prefix of the key").isEmpty();
        assertThat(admin.inspect(InboxKey.of(f.consumer() + "-other", "m1")))
                .as("the same id under another consumer")
                .isEmpty();
    }

    @Test
    @DisplayName("M2 inspect judges a record's state by the store's clock: lease or retention ended, then past"
            + " expiry + grace (shown EXPIRED, or gone)")
    default void m2_statesFollowTheStoresClock() throws Exception {
        Fixture f = adminFixture();
        Duration unit = f.timeUnit();
        InboxStore store = f.storeWithGrace(unit.multipliedBy(3));
        OwnerToken held = OwnerToken.random();
        OwnerToken done = OwnerToken.random();
        claim(store, ClaimRequest.of(key(f, "m2-held"), held, unit));
        claim(store, ClaimRequest.of(key(f, "m2-done"), done, Duration.ofMinutes(10)));
        assertThat(store.complete(key(f, "m2-done"), done, unit)).isTrue();
        pause(unit.multipliedBy(2));
        assertThat(store.admin().inspect(key(f, "m2-held")).map(RecordView::state))
                .as("a lease that ended, inside its grace")
                .contains(RecordState.LEASE_ENDED);
        assertThat(store.admin().inspect(key(f, "m2-done")).map(RecordView::state))
                .as("a retention that ended, inside its grace")
                .contains(RecordState.RETENTION_ENDED);
        pause(unit.multipliedBy(4));
        for (String id : List.of("m2-held", "m2-done")) {
            Optional<RecordState> state = store.admin().inspect(key(f, id)).map(RecordView::state);
            assertThat(state.isEmpty() || state.get() == RecordState.EXPIRED)
                    .as("%s past expiry + grace shows EXPIRED or nothing, but was %s", id, state)
                    .isTrue();
        }
    }

    @Test
    @DisplayName("M3 stuck lists exactly the consumer's ended leases overdue by the time asked, in id order"
            + " (UTF-8 byte order), page by page, each once")
    default void m3_stuckListsEndedLeasesInPages() {
        Fixture f = adminFixture();
        Duration unit = f.timeUnit();
        // In UTF-8 byte order (code points) U+FF21 comes before U+1F600; in UTF-16 order after it.
        List<String> stuck = List.of("s1", "s2", "s3", "s\uFF21", "s\uD83D\uDE00");
        List<String> owners = new ArrayList<>();
        for (String id : List.of("s\uD83D\uDE00", "s3", "s1", "s\uFF21", "s2")) {
            OwnerToken owner = OwnerToken.random();
            claim(f, ClaimRequest.of(key(f, id), owner, unit));
            owners.add(id + "=" + owner.value());
        }
        claim(f, ClaimRequest.of(key(f, "s-live"), OwnerToken.random(), Duration.ofMinutes(10)));
        OwnerToken finisher = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "s-done"), finisher, unit));
        assertThat(f.store().complete(key(f, "s-done"), finisher, unit)).isTrue();
        claim(f, ClaimRequest.of(InboxKey.of(f.consumer() + "-other", "s0"), OwnerToken.random(), unit));
        pause(unit.multipliedBy(2));

        InboxAdmin admin = f.store().admin();
        StuckQuery query = StuckQuery.of(f.consumer()).withLimit(2);
        List<List<String>> pages = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (StuckQuery q = query; q != null; ) {
            List<RecordView> page = admin.stuck(q);
            assertThat(page.size())
                    .as("page %s holds at most the limit", pages.size())
                    .isLessThanOrEqualTo(2);
            pages.add(page.stream().map(r -> r.key().id()).toList());
            for (RecordView r : page) {
                assertThat(r.state()).as("state of %s", r.key()).isEqualTo(RecordState.LEASE_ENDED);
                assertThat(r.key().consumer()).isEqualTo(f.consumer());
                seen.add(r.key().id() + "=" + r.owner());
            }
            q = q.next(page);
            assertThat(pages.size()).as("pages before the end").isLessThan(10);
        }
        assertThat(pages)
                .as("pages of two, in UTF-8 byte order of the ids")
                .containsExactly(
                        List.of(stuck.get(0), stuck.get(1)),
                        List.of(stuck.get(2), stuck.get(3)),
                        List.of(stuck.get(4)));
        assertThat(seen).as("each stuck record once, with its owner").containsExactlyInAnyOrderElementsOf(owners);

        assertThat(admin.stuck(StuckQuery.of(f.consumer()).withOverdue(Duration.ofMinutes(10))))
                .as("no lease ended ten minutes ago")
                .isEmpty();
        assertThat(admin.stuck(StuckQuery.of(f.consumer()).withAfter("s3")))
                .extracting(r -> r.key().id())
                .as("after s3")
                .containsExactly(stuck.get(3), stuck.get(4));
    }

    @Test
    @DisplayName("M4 count tallies the consumer's records by state, and only the consumer's")
    default void m4_countByState() {
        Fixture f = adminFixture();
        Duration unit = f.timeUnit();
        Duration long_ = Duration.ofMinutes(10);
        InboxAdmin admin = f.store().admin();
        assertThat(admin.count(f.consumer())).as("a consumer with no records").isEqualTo(RecordCounts.NONE);
        claim(f, ClaimRequest.of(key(f, "c-live"), OwnerToken.random(), long_));
        claim(f, ClaimRequest.of(key(f, "c-live-2"), OwnerToken.random(), long_));
        claim(f, ClaimRequest.of(key(f, "c-ended"), OwnerToken.random(), unit));
        OwnerToken done = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "c-done"), done, long_));
        assertThat(f.store().complete(key(f, "c-done"), done, long_)).isTrue();
        OwnerToken late = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "c-late"), late, long_));
        assertThat(f.store().complete(key(f, "c-late"), late, unit)).isTrue();
        claim(f, ClaimRequest.of(InboxKey.of(f.consumer() + "-other", "c-live"), OwnerToken.random(), long_));
        pause(unit.multipliedBy(2));
        assertThat(admin.count(f.consumer()))
                .as("two live leases, one ended, one completed, one past its retention")
                .isEqualTo(new RecordCounts(2, 1, 1, 1, 0));
    }

    @Test
    @DisplayName("M5 releaseLease ends any owner's lease: the next claim is ACQUIRED and the old owner is"
            + " fenced; a COMPLETED or absent key is left alone")
    default void m5_releaseLeaseFencesTheOwner() {
        Fixture f = adminFixture();
        InboxStore store = f.store();
        InboxAdmin admin = store.admin();
        Duration long_ = Duration.ofMinutes(10);
        OwnerToken first = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "r"), first, long_));
        assertThat(admin.releaseLease(key(f, "r")))
                .as("release of a live lease")
                .isTrue();
        assertThat(admin.inspect(key(f, "r"))).as("the released record").isEmpty();
        assertThat(store.complete(key(f, "r"), first, long_))
                .as("complete by the released owner")
                .isFalse();
        assertThat(store.claim(ClaimRequest.of(key(f, "r"), OwnerToken.random(), long_))
                        .status())
                .as("the next delivery")
                .isEqualTo(ClaimStatus.ACQUIRED);
        assertThat(store.renew(key(f, "r"), first, long_))
                .as("renew by the released owner")
                .isFalse();
        assertThat(store.release(key(f, "r"), first))
                .as("release by the released owner")
                .isFalse();

        OwnerToken ended = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "r-ended"), ended, f.timeUnit()));
        pause(f.timeUnit().multipliedBy(2));
        assertThat(admin.releaseLease(key(f, "r-ended")))
                .as("release of an ended lease")
                .isTrue();
        assertThat(store.complete(key(f, "r-ended"), ended, long_))
                .as("complete by the owner of the released, ended lease")
                .isFalse();

        OwnerToken done = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "r-done"), done, long_));
        assertThat(store.complete(key(f, "r-done"), done, long_)).isTrue();
        assertThat(admin.releaseLease(key(f, "r-done")))
                .as("release of a COMPLETED record")
                .isFalse();
        assertThat(store.claim(ClaimRequest.of(key(f, "r-done"), OwnerToken.random(), long_))
                        .status())
                .as("the completed key after the refused release")
                .isEqualTo(ClaimStatus.DUPLICATE);
        assertThat(admin.releaseLease(key(f, "r-absent")))
                .as("release of an absent key")
                .isFalse();
    }

    @Test
    @DisplayName("M6 forget deletes one key's record whatever its state: the next delivery is ACQUIRED, a holder"
            + " is fenced, the same id under another consumer stays")
    default void m6_forgetDeletesOneRecord() {
        Fixture f = adminFixture();
        InboxStore store = f.store();
        InboxAdmin admin = store.admin();
        Duration long_ = Duration.ofMinutes(10);
        InboxKey mine = key(f, "f");
        InboxKey theirs = InboxKey.of(f.consumer() + "-other", "f");
        for (InboxKey k : List.of(mine, theirs)) {
            OwnerToken owner = OwnerToken.random();
            claim(store, ClaimRequest.of(k, owner, long_));
            assertThat(store.complete(k, owner, long_)).isTrue();
        }
        assertThat(admin.forget(mine)).as("forget of a COMPLETED record").isTrue();
        assertThat(admin.inspect(mine)).as("the forgotten record").isEmpty();
        assertThat(admin.forget(mine)).as("forget again").isFalse();
        assertThat(store.claim(ClaimRequest.of(mine, OwnerToken.random(), long_)))
                .as("the next delivery of the forgotten key")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(ClaimRequest.of(theirs, OwnerToken.random(), long_))
                        .status())
                .as("the same id under another consumer")
                .isEqualTo(ClaimStatus.DUPLICATE);

        OwnerToken holder = OwnerToken.random();
        claim(f, ClaimRequest.of(key(f, "f-held"), holder, long_));
        assertThat(admin.forget(key(f, "f-held")))
                .as("forget of an IN_PROGRESS record")
                .isTrue();
        assertThat(store.complete(key(f, "f-held"), holder, long_))
                .as("complete by the holder of the forgotten record")
                .isFalse();
        assertThat(admin.forget(key(f, "f-absent")))
                .as("forget of an absent key")
                .isFalse();
    }

    @Test
    @DisplayName("M7 bad admin input fails with IllegalArgumentException before any I/O")
    default void m7_badInputIsRejected() {
        InboxAdmin admin = adminFixture().store().admin();
        assertThatThrownBy(() -> admin.inspect(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.stuck(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.count(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.count("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.count("x".repeat(513))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.releaseLease(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.forget(null)).isInstanceOf(IllegalArgumentException.class);
        String consumer = adminFixture().consumer();
        assertThatThrownBy(() -> StuckQuery.of(consumer).withLimit(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StuckQuery.of(consumer).withLimit(StuckQuery.MAX_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StuckQuery.of(consumer).withOverdue(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StuckQuery.of(consumer).withOverdue(Duration.ofSeconds(Long.MAX_VALUE)))
                .as("an overdue time past 100 years")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StuckQuery.of(consumer).withAfter("")).isInstanceOf(IllegalArgumentException.class);
    }

    private static InboxKey key(Fixture f, String id) {
        return InboxKey.of(f.consumer(), id);
    }

    private static void claim(Fixture f, ClaimRequest request) {
        claim(f.store(), request);
    }

    private static void claim(InboxStore store, ClaimRequest request) {
        assertThat(store.claim(request).status())
                .as("claim of %s", request.key())
                .isEqualTo(ClaimStatus.ACQUIRED);
    }

    private static void assertAround(Instant actual, Instant expected, String what) {
        assertThat(actual)
                .as("%s by the store's clock, near the kit's", what)
                .isBetween(expected.minus(CLOCK_TOLERANCE), expected.plus(CLOCK_TOLERANCE));
    }
}
