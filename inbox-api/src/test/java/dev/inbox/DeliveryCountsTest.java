package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.spi.DeliveryCounts;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class DeliveryCountsTest {

    @Test
    void eachDeliveryIsCountedAndReportedOnce_underItsConsumer() {
        List<String> reported = new CopyOnWriteArrayList<>();
        DeliveryCounts counts = new DeliveryCounts("orders", new InboxMetrics() {
            @Override
            public void delivered(String consumer, DeliveryOutcome outcome) {
                reported.add(consumer + ":" + outcome);
            }
        });
        counts.record(DeliveryOutcome.PROCESSED);
        counts.record(DeliveryOutcome.STORE_FAILED, 3);
        counts.record(DeliveryOutcome.DEAD_LETTERED, 0);
        assertThat(counts.count(DeliveryOutcome.PROCESSED)).isEqualTo(1);
        assertThat(counts.count(DeliveryOutcome.STORE_FAILED)).isEqualTo(3);
        assertThat(counts.count(DeliveryOutcome.DEAD_LETTERED)).isZero();
        assertThat(reported)
                .containsExactly(
                        "orders:PROCESSED", "orders:STORE_FAILED", "orders:STORE_FAILED", "orders:STORE_FAILED");
    }

    @Test
    void nullArguments_areRefused() {
        assertThatThrownBy(() -> new DeliveryCounts(null, InboxMetrics.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeliveryCounts("orders", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
