package dev.inbox.spring.kafka;

import static dev.inbox.spring.kafka.SpringKafka.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import dev.inbox.testing.StoppedObservations;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * The interceptor under Spring Kafka's own listener observation ({@code observationEnabled}), through
 * the real broker: each record's claim and completion are children of the container's {@code
 * spring.kafka.listener} observation, so they land in the trace the container continues from the
 * record's headers; a duplicate's listener observation is stopped like any other.
 */
class InboxRecordInterceptorObservationTest {

    @RegisterExtension
    static final Database db = new Database();

    @Test
    void claimAndCompletion_nestUnderTheContainersListenerObservation() throws Exception {
        StoppedObservations observations = new StoppedObservations();
        SpringInbox inbox =
                SpringInbox.leaseOnly(Inbox.builder(CaffeineInboxStore.builder().build())
                        .consumer("observed")
                        .observer(ObservationInboxObserver.of(observations.registry()))
                        .build());
        assertThat(consume(inbox, observations, false)).containsExactly("e1");
        observations.assertEachNestedUnder("spring.kafka.listener", "inbox.claim", 2);
        observations.assertEachNestedUnder("spring.kafka.listener", "inbox.complete", 1);
        assertThat(observations.named("inbox.claim"))
                .extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly("acquired", "duplicate");
    }

    /**
     * Transactional mode: the claim joins the container's database transaction and is observed
     * there, under the listener's observation; the commit that records the event is Spring's.
     */
    @Test
    void transactionalMode_theClaimNestsUnderTheContainersListenerObservation() throws Exception {
        StoppedObservations observations = new StoppedObservations();
        SpringInbox inbox = SpringInbox.joining(
                Inbox.builder(db.store)
                        .consumer(Database.run())
                        .observer(ObservationInboxObserver.of(observations.registry()))
                        .build(),
                db.pool);
        assertThat(consume(inbox, observations, true)).containsExactly("e1");
        observations.assertEachNestedUnder("spring.kafka.listener", "inbox.claim", 2);
        assertThat(observations.named("inbox.claim"))
                .extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly("acquired", "duplicate");
        assertThat(observations.named("inbox.complete"))
                .as("no lease to complete: the transaction's commit records the event")
                .isEmpty();
    }

    /** Sends one event twice and runs an observed container over it; returns what the listener applied. */
    private static List<String> consume(SpringInbox inbox, StoppedObservations observations, boolean transactional)
            throws Exception {
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> applied.add(r.value()));
            if (transactional) {
                container.getContainerProperties().setTransactionManager(db.transactions);
            }
            container.getContainerProperties().setObservationEnabled(true);
            container.getContainerProperties().setObservationRegistry(observations.registry());
            InboxKafka.configure(
                    container, new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents()), Duration.ofMillis(100));
            kafka.send("e1", "e1");
            container.start();
            try {
                await("both offsets committed", 60, () -> kafka.committed() == 2);
                await(
                        "both listener observations stopped",
                        10,
                        () -> observations.named("spring.kafka.listener").size() == 2);
            } finally {
                container.stop();
            }
        }
        return applied;
    }
}
