package dev.inbox.spring.kafka;

import static dev.inbox.spring.kafka.SpringKafka.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.spring.SpringInbox;
import dev.inbox.testing.StoppedObservations;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * The interceptor under Spring Kafka's own listener observation ({@code observationEnabled}), through
 * the real broker: each record's claim and completion are children of the container's {@code
 * spring.kafka.listener} observation, so they land in the trace the container continues from the
 * record's headers; a duplicate's listener observation is stopped like any other.
 */
class InboxRecordInterceptorObservationTest {

    @Test
    void claimAndCompletion_nestUnderTheContainersListenerObservation() throws Exception {
        StoppedObservations observations = new StoppedObservations();
        SpringInbox inbox =
                SpringInbox.leaseOnly(Inbox.builder(CaffeineInboxStore.builder().build())
                        .consumer("observed")
                        .observer(ObservationInboxObserver.of(observations.registry()))
                        .build());
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> applied.add(r.value()));
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
        assertThat(applied).containsExactly("e1");
        observations.assertEachNestedUnder("spring.kafka.listener", "inbox.claim", 2);
        observations.assertEachNestedUnder("spring.kafka.listener", "inbox.complete", 1);
        assertThat(observations.named("inbox.claim"))
                .extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly("acquired", "duplicate");
    }
}
