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
 * Rule C9: threads racing on an <em>expired</em> lease, each round against one of three
 * interferers on thread 0 — the old owner completing it, the old owner releasing it, or a purge
 * (the record then past its grace as well). Whatever the order, exactly one claimant may end up
 * holding the key, and a completion the old owner was told succeeded must leave none; afterwards a
 * later delivery finds the key held (BUSY) or done (DUPLICATE), never free.
 */
final class TakeoverRace {

    /** What one thread did in one round: the interferer's success, or a claimant's answer. */
    record Outcome(boolean interferer, boolean succeeded, ClaimResult claim) {}

    private TakeoverRace() {}

    /**
     * Runs the race and returns one line per round that broke the rule (empty when none did).
     *
     * @param store a store whose grace outlasts the test
     * @param pastGrace a store with a grace of a millisecond, for the purge rounds
     */
    static List<String> violations(InboxStore store, InboxStore pastGrace, String consumer, int threads, int rounds)
            throws Exception {
        Duration moment = Duration.ofMillis(1);
        Duration longTime = Duration.ofMinutes(10);
        List<OwnerToken> oldOwners = new ArrayList<>(rounds);
        for (int r = 0; r < rounds; r++) {
            OwnerToken old = OwnerToken.random();
            oldOwners.add(old);
            InboxStore target = r % 3 == 2 ? pastGrace : store;
            ClaimResult setUp = target.claim(ClaimRequest.of(key(consumer, r), old, moment));
            if (!setUp.isAcquired()) {
                throw new AssertionError("C9 set-up: a fresh key answered " + setUp);
            }
        }
        TckSupport.pause(Duration.ofMillis(50)); // every lease (and short grace) is over
        List<List<Outcome>> results = Race.race(
                threads,
                rounds,
                (round, thread) -> {
                    InboxKey key = key(consumer, round);
                    InboxStore target = round % 3 == 2 ? pastGrace : store;
                    if (thread > 0) {
                        // Claimants arrive spread over ¾ ms, so some come while the interferer is
                        // half-way through, as redeliveries do.
                        LockSupport.parkNanos(((round * 31L + thread * 17L) % 4) * 250_000);
                        return new Outcome(
                                false, false, target.claim(ClaimRequest.of(key, OwnerToken.random(), longTime)));
                    }
                    boolean done = switch (round % 3) {
                        case 0 -> target.complete(key, oldOwners.get(round), longTime);
                        case 1 -> target.release(key, oldOwners.get(round));
                        default -> {
                            target.purge();
                            yield false;
                        }
                    };
                    return new Outcome(true, done, ClaimResult.busy());
                },
                Outcome[]::new);
        List<String> wrong = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            List<Outcome> round = results.get(r);
            boolean interfererSucceeded = round.get(0).succeeded();
            List<ClaimResult> claims =
                    round.subList(1, round.size()).stream().map(Outcome::claim).toList();
            long holders = claims.stream().filter(ClaimResult::isAcquired).count();
            String mode = r % 3 == 0 ? "complete" : r % 3 == 1 ? "release" : "purge";
            boolean ok = r % 3 == 0 ? holders == (interfererSucceeded ? 0 : 1) : holders == 1;
            String what = "round " + r + " (" + mode + (r % 3 == 2 ? "" : " = " + interfererSucceeded) + ")";
            if (!ok) {
                wrong.add(what + ": " + holders + " claimants hold the key: " + claims);
                continue;
            }
            // Afterwards the key is held or done, never free: a later delivery must not get in.
            InboxStore target = r % 3 == 2 ? pastGrace : store;
            ClaimResult later = target.claim(ClaimRequest.of(key(consumer, r), OwnerToken.random(), longTime));
            ClaimResult expected = r % 3 == 0 && interfererSucceeded ? null : ClaimResult.busy();
            if (expected == null ? later.status() != dev.inbox.spi.ClaimStatus.DUPLICATE : !expected.equals(later)) {
                wrong.add(what + ": a later delivery was answered " + later);
            }
        }
        return wrong;
    }

    private static InboxKey key(String consumer, int round) {
        return InboxKey.of(consumer, "c9-" + round);
    }
}
