package dev.inbox.tck;

import static dev.inbox.tck.Race.race;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import dev.inbox.SequenceStatus;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract of a {@link SequenceGuard} (rule O1). Extend it and implement {@link
 * #createGuard()}; each test uses entities of its own consumer.
 */
public abstract class SequenceGuardContract {

    /** The guard under test. */
    protected SequenceGuard guard;

    private String consumer;

    /** Returns a new guard; it may share its table or keyspace with other guards the kit creates. */
    protected abstract SequenceGuard createGuard() throws Exception;

    /** How many threads race on one sequence number. */
    protected int raceThreads() {
        return 8;
    }

    /** How many sequence numbers the threads race on. */
    protected int raceRounds() {
        return 300;
    }

    @BeforeEach
    void openGuard() throws Exception {
        consumer = TckSupport.freshConsumer();
        guard = createGuard();
    }

    @AfterEach
    void closeGuard() {
        guard.close();
    }

    @Test
    @DisplayName("O1 the guard answers APPLIED, STALE or GAP")
    void o1_appliedStaleGap() {
        InboxKey account = InboxKey.of(consumer, "account-1");
        assertThat(guard.advance(account, 2))
                .as("ahead of the first expected number")
                .isEqualTo(new SequenceResult(SequenceStatus.GAP, 1));
        assertThat(guard.advance(account, 1)).isEqualTo(new SequenceResult(SequenceStatus.APPLIED, 1));
        assertThat(guard.advance(account, 1))
                .as("the same number again")
                .isEqualTo(new SequenceResult(SequenceStatus.STALE, 2));
        assertThat(guard.advance(account, 2)).isEqualTo(new SequenceResult(SequenceStatus.APPLIED, 2));
        assertThat(guard.advance(account, 4)).isEqualTo(new SequenceResult(SequenceStatus.GAP, 3));
        assertThat(guard.advance(account, 1)).isEqualTo(new SequenceResult(SequenceStatus.STALE, 3));
        assertThat(guard.advance(account, 3)).isEqualTo(new SequenceResult(SequenceStatus.APPLIED, 3));
    }

    @Test
    @DisplayName("O1 entities are independent and scoped by consumer")
    void o1_entitiesAreIndependent() {
        assertThat(guard.advance(InboxKey.of(consumer, "a"), 1).isApplied()).isTrue();
        assertThat(guard.advance(InboxKey.of(consumer, "A"), 1).isApplied())
                .as("another entity")
                .isTrue();
        assertThat(guard.advance(InboxKey.of(TckSupport.freshConsumer(), "a"), 1)
                        .isApplied())
                .as("the same entity under another consumer")
                .isTrue();
        assertThat(guard.advance(InboxKey.of(consumer, "a"), 2).isApplied()).isTrue();
    }

    @Test
    @DisplayName("O1 a race on one sequence number has exactly one APPLIED")
    void o1_raceHasOneWinner() throws Exception {
        InboxKey entity = InboxKey.of(consumer, "raced");
        int threads = raceThreads();
        List<List<SequenceResult>> rounds =
                race(threads, raceRounds(), (round, thread) -> guard.advance(entity, round + 1), SequenceResult[]::new);
        for (int r = 0; r < rounds.size(); r++) {
            List<SequenceResult> results = rounds.get(r);
            assertThat(results.stream().filter(SequenceResult::isApplied).count())
                    .as("APPLIED for sequence %d: %s", r + 1, results)
                    .isEqualTo(1);
            assertThat(results.stream()
                            .filter(x -> x.status() == SequenceStatus.STALE)
                            .count())
                    .isEqualTo(threads - 1);
        }
    }

    @Test
    @DisplayName("E1 the guard rejects a null entity and sequence numbers below the first")
    void e1_badInput() {
        assertThatThrownBy(() -> guard.advance(null, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> guard.advance(InboxKey.of(consumer, "x"), 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(guard.advance(InboxKey.of(consumer, "x"), 1).isApplied())
                .as("the rejected call changed nothing")
                .isTrue();
    }

    @Test
    @DisplayName("L1 the guard fails with IllegalStateException after close")
    void l1_closed() throws Exception {
        SequenceGuard closing = createGuard();
        closing.close();
        closing.close();
        assertThatThrownBy(() -> closing.advance(InboxKey.of(consumer, "x"), 1))
                .isInstanceOf(IllegalStateException.class);
    }
}
