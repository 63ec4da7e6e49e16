package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Rule C9: threads racing on an <em>expired</em> lease, in four kinds of rounds: against one of
 * three interferers on thread 0 — the old owner completing it, the old owner releasing it, or a
 * purge (the record then past its grace as well) — with the claimants arriving spread over ¾ ms,
 * and every thread claiming at once with nothing else going on (a takeover that reads the record,
 * then writes its owner unconditionally, is caught there: two claimants both read it expired).
 * Claimants are spread over the store instances given, as consumer processes would be. Whatever the
 * order, exactly one claimant may end up holding the key, and a completion the old owner was told
 * succeeded must leave none; afterwards a later delivery finds the key held (BUSY) or done
 * (DUPLICATE), never free.
 */
final class TakeoverRace {

    /** What one thread did in one round: the interferer's success, or a claimant's answer. */
    record Outcome(boolean interferer, boolean succeeded, ClaimResult claim) {}

    private TakeoverRace() {}

    /**
     * At least this many claimants-only rounds run, however few rounds the kit was given: a
     * narrow read-then-write window shows in a fraction of them only.
     */
    static final int MIN_CLAIMANTS_ONLY = 100;

    /** The kinds of rounds, by {@code round % 4}; the rounds added for the floor are claimants only. */
    private static final int COMPLETE = 0;

    private static final int RELEASE = 1;
    private static final int PURGE = 2;
    private static final int CLAIMANTS_ONLY = 3;

    /**
     * Runs the race and returns one line per round that broke the rule (empty when none did).
     *
     * @param instances instances of one store that share their records (one table), whose grace
     *     outlasts the test; the first alone when its instances keep records of their own
     * @param pastGrace a store with a grace of a millisecond, for the purge rounds
     */
    static List<String> violations(
            List<InboxStore> instances, InboxStore pastGrace, String consumer, int threads, int rounds)
            throws Exception {
        int total = rounds + Math.max(0, MIN_CLAIMANTS_ONLY - rounds / 4);
        InboxStore store = instances.get(0);
        Duration moment = Duration.ofMillis(1);
        Duration longTime = Duration.ofMinutes(10);
        List<OwnerToken> oldOwners = new ArrayList<>(total);
        for (int r = 0; r < total; r++) {
            OwnerToken old = OwnerToken.random();
            oldOwners.add(old);
            InboxStore target = kind(r, rounds) == PURGE ? pastGrace : store;
            ClaimResult setUp = target.claim(ClaimRequest.of(key(consumer, r), old, moment));
            if (!setUp.isAcquired()) {
                throw new AssertionError("C9 set-up: a fresh key answered " + setUp);
            }
        }
        TckSupport.pause(Duration.ofMillis(50)); // every lease (and short grace) is over
        List<List<Outcome>> results = Race.race(
                threads,
                total,
                (round, thread) -> {
                    InboxKey key = key(consumer, round);
                    int kind = kind(round, rounds);
                    InboxStore target = kind == PURGE ? pastGrace : instances.get(thread % instances.size());
                    if (kind == CLAIMANTS_ONLY) {
                        return new Outcome(
                                false, false, target.claim(ClaimRequest.of(key, OwnerToken.random(), longTime)));
                    }
                    if (thread > 0) {
                        // Claimants arrive spread over ¾ ms, so some come while the interferer is
                        // half-way through, as redeliveries do.
                        LockSupport.parkNanos(((round * 31L + thread * 17L) % 4) * 250_000);
                        return new Outcome(
                                false, false, target.claim(ClaimRequest.of(key, OwnerToken.random(), longTime)));
                    }
                    boolean done = switch (kind) {
                        case COMPLETE -> target.complete(key, oldOwners.get(round), longTime);
                        case RELEASE -> target.release(key, oldOwners.get(round));
                        default -> {
                            target.purge();
                            yield false;
                        }
                    };
                    return new Outcome(true, done, ClaimResult.busy());
                },
                Outcome[]::new);
        List<String> wrong = new ArrayList<>();
        for (int r = 0; r < total; r++) {
            int kind = kind(r, rounds);
            List<Outcome> round = results.get(r);
            boolean interfererSucceeded = kind != CLAIMANTS_ONLY && round.get(0).succeeded();
            List<ClaimResult> claims = round.subList(kind == CLAIMANTS_ONLY ? 0 : 1, round.size()).stream()
                    .map(Outcome::claim)
                    .toList();
            long holders = claims.stream().filter(ClaimResult::isAcquired).count();
            String mode = switch (kind) {
                case COMPLETE -> "complete = " + interfererSucceeded;
                case RELEASE -> "release = " + interfererSucceeded;
                case PURGE -> "purge";
                default -> "claimants only";
            };
            long expectedHolders = kind == COMPLETE && interfererSucceeded ? 0 : 1;
            String what = "round " + r + " (" + mode + ")";
            if (holders != expectedHolders) {
                String why = expectedHolders == 0
                        ? "none may: the old owner was told its completion succeeded, so the event is done"
                        : "exactly one must take over the expired lease";
                wrong.add(what + ": " + holders + " of " + claims.size() + " claimants took the key, but " + why
                        + " — claims: " + claims);
                continue;
            }
            // Afterwards the key is held or done, never free: a later delivery must not get in.
            InboxStore target = kind == PURGE ? pastGrace : store;
            ClaimResult later = target.claim(ClaimRequest.of(key(consumer, r), OwnerToken.random(), longTime));
            ClaimResult expected = kind == COMPLETE && interfererSucceeded ? null : ClaimResult.busy();
            if (expected == null ? later.status() != dev.inbox.spi.ClaimStatus.DUPLICATE : !expected.equals(later)) {
                wrong.add(what + ": a later delivery was answered " + later);
            }
        }
        return wrong;
    }

    private static int kind(int round, int asked) {
        return round < asked ? round % 4 : CLAIMANTS_ONLY;
    }

    private static InboxKey key(String consumer, int round) {
        return InboxKey.of(consumer, "c9-" + round);
    }
}
