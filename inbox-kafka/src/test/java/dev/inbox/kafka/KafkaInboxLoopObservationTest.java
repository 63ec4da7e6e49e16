package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.PostgresPool;
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
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka loop observed through a real broker: each record's receive reads the producer's trace
 * context from the record's headers, and the steps of its event are children of it; a lease-mode
 * poll's claim is one {@code inbox.claimAll} of its own.
 */
class KafkaInboxLoopObservationTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(2);

    /** How a test builds its loop over the consumer, observed by {@code observer}. */
    private interface Loops {
        KafkaInboxLoop<String, String> loop(
                KafkaConsumer<String, String> consumer, ObservationInboxObserver observer, int[] applied);
    }

    @Test
    void eachRecordIsReceivedFromItsHeaders_andItsWorkAndCompletionNestUnderIt() throws Exception {
        StoppedObservations stopped = new StoppedObservations();
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            consumeOne(
                    stopped,
                    (consumer, observer, applied) -> KafkaInboxLoop.lease(
                                    consumer,
                                    Inbox.builder(store)
                                            .consumer("kafka-observed")
                                            .observer(observer)
                                            .build(),
                                    r -> applied[0]++)
                            .build());
        }
        Observation.Context receive = receivedFromHeaders(stopped);
        for (String step : List.of("inbox.work", "inbox.complete")) {
            assertNestedUnder(stopped, step, receive);
        }
        assertThat(stopped.first("inbox.claimAll").getParentObservation())
                .as("the poll's claim is not inside one record's receive")
                .isNull();
    }

    @Test
    void transactionalMode_theClaimWorkAndCommitNestUnderTheRecordsReceive() throws Exception {
        StoppedObservations stopped = new StoppedObservations();
        try (PostgresInboxStore store = PostgresInboxStore.builder(db.pool())
                .table("inbox_kafka_observed")
                .build()) {
            store.createSchemaIfMissing();
            consumeOne(
                    stopped,
                    (consumer, observer, applied) -> KafkaInboxLoop.transactional(
                                    consumer,
                                    TransactionalInbox.builder(store, db.pool())
                                            .consumer("kafka-observed-" + UUID.randomUUID())
                                            .observer(observer)
                                            .build(),
                                    (r, connection) -> applied[0]++)
                            .build());
        }
        Observation.Context receive = receivedFromHeaders(stopped);
        for (String step : List.of("inbox.claim", "inbox.work", "inbox.complete")) {
            assertNestedUnder(stopped, step, receive);
        }
    }

    /** Sends one record carrying {@link #TRACEPARENT} and polls the loop until it is applied. */
    private static void consumeOne(StoppedObservations stopped, Loops loops) throws Exception {
        String topic = Kafka.topic(1);
        try (KafkaProducer<String, String> producer = Kafka.producer();
                KafkaConsumer<String, String> consumer = Kafka.consumer("observed-" + UUID.randomUUID())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, "{\"event\":\"e1\"}");
            record.headers().add("ce_id", "e1".getBytes(StandardCharsets.UTF_8));
            record.headers().add("ce_source", "/tests".getBytes(StandardCharsets.UTF_8));
            record.headers().add("traceparent", TRACEPARENT.getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(30, TimeUnit.SECONDS);
            int[] applied = {0};
            KafkaInboxLoop<String, String> loop =
                    loops.loop(consumer, ObservationInboxObserver.of(stopped.registry()), applied);
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (applied[0] == 0 && System.nanoTime() < deadline) {
                loop.pollOnce(Duration.ofMillis(100));
            }
            assertThat(applied[0]).as("the record was applied").isEqualTo(1);
        }
    }

    private static Observation.Context receivedFromHeaders(StoppedObservations stopped) {
        Observation.Context receive = stopped.first("inbox.receive");
        assertThat(receive).isInstanceOf(ReceiverContext.class);
        @SuppressWarnings("unchecked")
        Function<String, String> carrier = ((ReceiverContext<Function<String, String>>) receive).getCarrier();
        assertThat(carrier.apply("traceparent"))
                .as("the producer's trace context, read from the record's headers")
                .isEqualTo(TRACEPARENT);
        assertThat(receive.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("done");
        return receive;
    }

    private static void assertNestedUnder(StoppedObservations stopped, String step, Observation.Context receive) {
        Observation.Context context = stopped.first(step);
        assertThat(context.getParentObservation())
                .as("%s runs inside the record's receive", step)
                .isNotNull();
        assertThat(context.getParentObservation().getContextView()).isSameAs(receive);
        assertThat(context.getHighCardinalityKeyValue("inbox.key").getValue()).isEqualTo("ce:/tests:e1");
    }
}
