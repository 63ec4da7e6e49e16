package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Rule D1: the answer to a claim for every combination of what the store holds — nothing, an
 * IN_PROGRESS or a COMPLETED record, each live, past expiry within grace, or past grace — who
 * claims (the record's owner or another), the fingerprint the record keeps (none or one) and the
 * one the claim offers (none, the same, another). The expected answers are written out here, once,
 * independently of any store; every store, whether it decides in Java, in SQL, in Lua or in a
 * DynamoDB condition, must give them.
 */
final class DecisionTable {

    /** What the store holds for the key when the claim arrives. */
    enum Held {
        ABSENT,
        IN_PROGRESS_LIVE,
        IN_PROGRESS_IN_GRACE,
        IN_PROGRESS_PAST_GRACE,
        COMPLETED_LIVE,
        COMPLETED_IN_GRACE,
        COMPLETED_PAST_GRACE;

        boolean pastGrace() {
            return this == IN_PROGRESS_PAST_GRACE || this == COMPLETED_PAST_GRACE;
        }

        boolean expires() {
            return this != ABSENT && this != IN_PROGRESS_LIVE && this != COMPLETED_LIVE;
        }
    }

    private static final String[] STORED = {null, "fp-a"};
    private static final String[] OFFERED = {null, "fp-a", "fp-b"};

    private DecisionTable() {}

    /** The answer the table requires. */
    static ClaimResult expected(Held held, boolean sameOwner, @Nullable String stored, @Nullable String offered) {
        return switch (held) {
            case ABSENT, IN_PROGRESS_PAST_GRACE, COMPLETED_PAST_GRACE -> ClaimResult.acquired();
            case IN_PROGRESS_LIVE -> sameOwner ? ClaimResult.acquired() : ClaimResult.busy();
            case IN_PROGRESS_IN_GRACE -> sameOwner ? ClaimResult.acquired() : ClaimResult.takenOver();
            case COMPLETED_LIVE -> ClaimResult.duplicate(false, FingerprintCheck.compare(stored, offered));
            case COMPLETED_IN_GRACE -> ClaimResult.duplicate(true, FingerprintCheck.compare(stored, offered));
        };
    }

    private record Case(
            Held held,
            boolean sameOwner,
            @Nullable String stored,
            @Nullable String offered,
            String id) {
        @Override
        public String toString() {
            return String.format(
                    "%-22s %-5s stored=%-4s offered=%-4s",
                    held,
                    sameOwner ? "same" : "other",
                    stored == null ? "none" : stored,
                    offered == null ? "none" : offered);
        }
    }

    /**
     * Sets up every case, waits once so that the short leases and retentions expire, claims each
     * key and returns one line per answer that differs from the table (empty when the store agrees).
     *
     * @param inGrace a store whose grace outlasts the test (records past expiry stay in grace)
     * @param pastGrace a store whose grace is {@code unit} (records past expiry + grace count as absent)
     * @param consumer the test's consumer
     * @param unit the short lease and retention; the wait is three of them
     */
    static List<String> mismatches(InboxStore inGrace, InboxStore pastGrace, String consumer, Duration unit) {
        Duration longTime = Duration.ofMinutes(10);
        List<Case> cases = new ArrayList<>();
        List<OwnerToken> owners = new ArrayList<>();
        for (Held held : Held.values()) {
            InboxStore store = held.pastGrace() ? pastGrace : inGrace;
            Duration expiry = held.expires() ? unit : longTime;
            for (boolean same : new boolean[] {true, false}) {
                for (String stored : STORED) {
                    for (String offered : OFFERED) {
                        Case c = new Case(held, same, stored, offered, "d1-" + cases.size());
                        OwnerToken owner = OwnerToken.random();
                        InboxKey key = InboxKey.of(consumer, c.id());
                        if (held != Held.ABSENT) {
                            boolean completed = held.name().startsWith("COMPLETED");
                            Duration lease = completed ? longTime : expiry;
                            require(
                                    store.claim(
                                            ClaimRequest.of(key, owner, lease).withFingerprint(stored)),
                                    c);
                            if (completed && !store.complete(key, owner, expiry)) {
                                throw new AssertionError("D1 set-up: complete of " + c + " failed");
                            }
                        }
                        cases.add(c);
                        owners.add(owner);
                    }
                }
            }
        }
        TckSupport.pause(unit.multipliedBy(3));
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            InboxStore store = c.held().pastGrace() ? pastGrace : inGrace;
            OwnerToken claimant = c.sameOwner() ? owners.get(i) : OwnerToken.random();
            ClaimResult actual = store.claim(ClaimRequest.of(InboxKey.of(consumer, c.id()), claimant, longTime)
                    .withFingerprint(c.offered()));
            ClaimResult expected = expected(c.held(), c.sameOwner(), c.stored(), c.offered());
            if (!expected.equals(actual)) {
                wrong.add(c + " -> expected " + expected + ", got " + actual);
            }
        }
        return wrong;
    }

    private static void require(ClaimResult setUp, Case c) {
        if (!setUp.isAcquired()) {
            throw new AssertionError("D1 set-up: claim of a fresh key for " + c + " answered " + setUp);
        }
    }
}
