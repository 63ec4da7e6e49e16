package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.HandleOutcome;
import dev.inbox.HandleResult;
import dev.inbox.InboxMetrics;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The lease target's accounting for storms through a broker: an adapter reports a lease lost only
 * to its metrics, without the event, so the target's own view of the store must charge the extra
 * application that follows to the event whose completion the store refused.
 */
class LeaseTargetTest {

    @Test
    void aBrokerDeliveryWhoseLeaseLapsedMidWork_isChargedToItsEvent_whenTheStoreRefusesItsCompletion() {
        AtomicLong nanos = new AtomicLong();
        try (CaffeineInboxStore store =
                CaffeineInboxStore.builder().ticker(nanos::get).build()) {
            StormConfig config = StormConfig.parse(new String[] {"--events", "10", "--lease-ms", "1000"});
            LeaseTarget target = new LeaseTarget("caffeine", store, "storm-test", config, InboxMetrics.NONE);
            List<Integer> charged = new CopyOnWriteArrayList<>();
            target.chargeUnrecordedTo(charged::add);
            String id = DedupKeys.cloudEvent("/storm", "e7");

            HandleResult first = target.inbox().handle(id, () -> {
                nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // the work outlives its lease
                HandleResult takeover = target.inbox(() -> false).handle(id, () -> target.record(7));
                assertThat(takeover.outcome()).isEqualTo(HandleOutcome.PROCESSED);
                target.record(7);
            });

            assertThat(first.leaseLost()).isTrue();
            assertThat(target.appliedCounts(10)[7]).isEqualTo(2);
            assertThat(charged).containsExactly(7);
        }
    }

    @Test
    void aCompletionTheStoreRecords_chargesNothing() {
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            StormConfig config = StormConfig.parse(new String[] {"--events", "10"});
            LeaseTarget target = new LeaseTarget("caffeine", store, "storm-test", config, InboxMetrics.NONE);
            List<Integer> charged = new CopyOnWriteArrayList<>();
            target.chargeUnrecordedTo(charged::add);

            target.inbox().handle(DedupKeys.cloudEvent("/storm", "e3"), () -> target.record(3));

            assertThat(charged).isEmpty();
        }
    }
}
