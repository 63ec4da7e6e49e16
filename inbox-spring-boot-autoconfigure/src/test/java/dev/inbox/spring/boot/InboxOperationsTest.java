package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxOperations;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** {@link InboxOperations}: the operator's writes are logged and counted, the reads pass through. */
// Alone: it reads the warnings of InboxOperations' logger, which another class's listener could write to.
@Isolated
class InboxOperationsTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<LogRecord> logged = new ArrayList<>();
    private final Logger logger = Logger.getLogger(InboxOperations.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logged) {
                logged.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    InboxOperationsTest() {
        logger.addHandler(capture);
    }

    @AfterEach
    void close() {
        logger.removeHandler(capture);
        store.close();
    }

    @Test
    void forgetLetsAnEventBeAppliedAgain_loggedAndCounted() {
        Inbox inbox = Inbox.builder(store).consumer("billing").build();
        InboxOperations ops = InboxOperations.of(store, MicrometerInboxMetrics.of(registry));
        int[] applied = {0};
        assertThat(inbox.handle("order-1", () -> applied[0]++).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(inbox.handle("order-1", () -> applied[0]++).outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(ops.inspect(InboxKey.of("billing", "order-1")).orElseThrow().state())
                .isEqualTo(RecordState.COMPLETED);

        assertThat(ops.forget(InboxKey.of("billing", "order-1"))).isTrue();
        assertThat(ops.forget(InboxKey.of("billing", "order-1")))
                .as("nothing left to forget")
                .isFalse();
        assertThat(inbox.handle("order-1", () -> applied[0]++).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        assertThat(applied[0]).as("applied again after the forget, on purpose").isEqualTo(2);

        assertThat(ops.forgotten()).isEqualTo(1);
        assertThat(actions("forget", "true")).isEqualTo(1.0);
        assertThat(actions("forget", "false")).isEqualTo(1.0);
        assertThat(warnings()).singleElement().asString().contains("forgot").contains("order-1");
    }

    @Test
    void releaseLeaseFencesTheOwner_loggedAndCounted() {
        InboxOperations ops = InboxOperations.of(store, MicrometerInboxMetrics.of(registry));
        InboxKey key = InboxKey.of("billing", "order-2");
        OwnerToken dead = OwnerToken.random();
        store.claim(ClaimRequest.of(key, dead, Duration.ofMinutes(5)));
        assertThat(ops.count("billing")).isEqualTo(new RecordCounts(1, 0, 0, 0, 0));

        assertThat(ops.releaseLease(key)).isTrue();
        assertThat(store.complete(key, dead, Duration.ofMinutes(5)))
                .as("the released owner is fenced")
                .isFalse();
        assertThat(ops.leasesReleased()).isEqualTo(1);
        assertThat(actions("release-lease", "true")).isEqualTo(1.0);
        assertThat(warnings())
                .singleElement()
                .asString()
                .contains("released the lease")
                .contains("order-2");
    }

    @Test
    void badInputAndStoresWithoutAdmin_failClearly() {
        InboxOperations ops = InboxOperations.of(store);
        assertThatThrownBy(() -> ops.forget(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ops.releaseLease(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxOperations.of(null)).isInstanceOf(IllegalArgumentException.class);
        InboxStore bare = new InboxStore() {
            @Override
            public dev.inbox.spi.ClaimResult claim(ClaimRequest request) {
                throw new AssertionError();
            }

            @Override
            public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
                throw new AssertionError();
            }

            @Override
            public boolean release(InboxKey key, OwnerToken owner) {
                throw new AssertionError();
            }

            @Override
            public long purge() {
                return 0;
            }

            @Override
            public void close() {}
        };
        assertThatThrownBy(() -> InboxOperations.of(bare))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("offers no admin operations");
        store.close();
        assertThatThrownBy(() -> InboxOperations.of(store)).isInstanceOf(IllegalStateException.class);
    }

    private double actions(String action, String changed) {
        return registry.get("inbox.admin.actions")
                .tag("consumer", "billing")
                .tag("action", action)
                .tag("changed", changed)
                .counter()
                .count();
    }

    private List<String> warnings() {
        synchronized (logged) {
            return logged.stream()
                    .filter(r -> r.getLevel() == Level.WARNING)
                    .map(r -> java.text.MessageFormat.format(r.getMessage(), r.getParameters()))
                    .toList();
        }
    }
}
