package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.testing.StoppedObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The Kafka loop observed through a real broker: each record's receive reads the producer's trace
 * context from the record's headers, and its work and completion are children of it; the poll's
 * claim is one {@code inbox.claimAll} of its own.
 */
class KafkaInboxLoopObservationTest {

    @Test
    void eachRecordIsReceivedFromItsHeaders_andItsWorkAndCompletionNestUnderIt() throws Exception {
        StoppedObservations stopped = new StoppedObservations();
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        String topic = Kafka.topic(1);
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build();
                KafkaProducer<String, String> producer = Kafka.producer();
                KafkaConsumer<String, String> consumer = Kafka.consumer("observed-" + UUID.randomUUID())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, "{\"event\":\"e1\"}");
            record.headers().add("ce_id", "e1".getBytes(StandardCharsets.UTF_8));
            record.headers().add("ce_source", "/tests".getBytes(StandardCharsets.UTF_8));
            record.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(30, TimeUnit.SECONDS);

            Inbox inbox = Inbox.builder(store)
                    .consumer("kafka-observed")
                    .observer(ObservationInboxObserver.of(stopped.registry()))
                    .build();
            int[] applied = {0};
            KafkaInboxLoop<String, String> loop =
                    KafkaInboxLoop.lease(consumer, inbox, r -> applied[0]++).build();
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (applied[0] == 0 && System.nanoTime() < deadline) {
                loop.pollOnce(Duration.ofMillis(100));
            }
            assertThat(applied[0]).as("the record was applied").isEqualTo(1);
        }

        Observation.Context receive = stopped.first("inbox.receive");
        assertThat(receive).isInstanceOf(ReceiverContext.class);
        @SuppressWarnings("unchecked")
        Function<String, String> carrier = ((ReceiverContext<Function<String, String>>) receive).getCarrier();
        assertThat(carrier.apply("traceparent"))
                .as("the producer's trace context, read from the record's headers")
                .isEqualTo(traceparent);
        assertThat(receive.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("done");
        for (String step : List.of("inbox.work", "inbox.complete")) {
            Observation.Context context = stopped.first(step);
            assertThat(context.getParentObservation())
                    .as("%s runs inside the record's receive", step)
                    .isNotNull();
            assertThat(context.getParentObservation().getContextView()).isSameAs(receive);
            assertThat(context.getHighCardinalityKeyValue("inbox.key").getValue())
                    .isEqualTo("ce:/tests:e1");
        }
        assertThat(stopped.first("inbox.claimAll").getParentObservation())
                .as("the poll's claim is not inside one record's receive")
                .isNull();
    }
}
