package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.PostgresPool;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.StoppedObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The SQS loop observed through the real SQS server: each message's receive reads the publisher's
 * trace context from its attributes, and its steps are children of it; a step on the whole receive
 * (the lease-mode claimAll, a transaction per receive) is a span of its own.
 */
class SqsInboxLoopObservationTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(2);

    /** How a test builds its loop over the queue, observed by {@code observer}. */
    private interface Loops {
        SqsInboxLoop.Builder loop(SqsClient sqs, String queue, ObservationInboxObserver observer, int[] applied);
    }

    @Test
    void leaseMode_eachMessageIsReceivedFromItsAttributes_andItsWorkNestsUnderIt() {
        StoppedObservations stopped = new StoppedObservations();
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            consumeOne(
                    stopped,
                    (sqs, queue, observer, applied) -> SqsInboxLoop.lease(
                            sqs,
                            queue,
                            Inbox.builder(store)
                                    .consumer("sqs-observed")
                                    .observer(observer)
                                    .build(),
                            message -> applied[0]++));
        }
        Observation.Context receive = receivedFromAttributes(stopped);
        assertNestedUnder(stopped, "inbox.work", receive);
        assertThat(stopped.first("inbox.claimAll").getParentObservation())
                .as("the receive's claim is not inside one message's receive")
                .isNull();
    }

    @Test
    void transactionalMode_theClaimWorkAndCommitNestUnderTheMessagesReceive() {
        StoppedObservations stopped = new StoppedObservations();
        try (PostgresInboxStore store = postgres()) {
            consumeOne(
                    stopped,
                    (sqs, queue, observer, applied) -> SqsInboxLoop.transactional(
                            sqs, queue, transactional(store, observer), (message, connection) -> applied[0]++));
        }
        Observation.Context receive = receivedFromAttributes(stopped);
        for (String step : new String[] {"inbox.claim", "inbox.work", "inbox.complete"}) {
            assertNestedUnder(stopped, step, receive);
        }
    }

    /** One transaction for the whole receive: its steps belong to no one message's trace. */
    @Test
    void transactionPerReceive_itsStepsAreSpansOfTheirOwn() {
        StoppedObservations stopped = new StoppedObservations();
        try (PostgresInboxStore store = postgres()) {
            consumeOne(
                    stopped,
                    (sqs, queue, observer, applied) -> SqsInboxLoop.transactionalBatch(
                            sqs, queue, transactional(store, observer), (message, connection) -> applied[0]++));
        }
        assertThat(stopped.named("inbox.receive")).isEmpty();
        for (String step : new String[] {"inbox.claimAll", "inbox.work", "inbox.complete"}) {
            assertThat(stopped.first(step).getParentObservation())
                    .as("%s is a span of its own", step)
                    .isNull();
        }
    }

    private static PostgresInboxStore postgres() {
        PostgresInboxStore store = PostgresInboxStore.builder(db.pool())
                .table("inbox_sqs_observed")
                .build();
        store.createSchemaIfMissing();
        return store;
    }

    private static TransactionalInbox transactional(PostgresInboxStore store, ObservationInboxObserver observer) {
        return TransactionalInbox.builder(store, db.pool())
                .consumer("sqs-observed-" + UUID.randomUUID())
                .observer(observer)
                .build();
    }

    /** Sends one message carrying {@link #TRACEPARENT} and runs the loop until it is acknowledged. */
    private static void consumeOne(StoppedObservations stopped, Loops loops) {
        try (SqsClient sqs = SqsQueues.client()) {
            String queue = SqsQueues.create(sqs, "inbox-observed", Map.of());
            try {
                sqs.sendMessage(r -> r.queueUrl(queue)
                        .messageBody("{\"order\":1}")
                        .messageAttributes(Map.of(
                                "traceparent",
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue(TRACEPARENT)
                                        .build(),
                                "id", // the producer's event id, as Debezium's outbox router sends it
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue("order-1-" + UUID.randomUUID())
                                        .build())));
                int[] applied = {0};
                SqsInboxLoop loop = loops.loop(sqs, queue, ObservationInboxObserver.of(stopped.registry()), applied)
                        .waitTime(Duration.ofSeconds(1))
                        .build();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (loop.counts().acknowledged() == 0 && System.nanoTime() < deadline) {
                    loop.pollOnce();
                }
                assertThat(applied[0]).as("the message was applied").isEqualTo(1);
            } finally {
                sqs.deleteQueue(r -> r.queueUrl(queue));
            }
        }
    }

    private static Observation.Context receivedFromAttributes(StoppedObservations stopped) {
        Observation.Context receive = stopped.first("inbox.receive");
        assertThat(receive).isInstanceOf(ReceiverContext.class);
        @SuppressWarnings("unchecked")
        Function<String, String> carrier = ((ReceiverContext<Function<String, String>>) receive).getCarrier();
        assertThat(carrier.apply("traceparent"))
                .as("the publisher's trace context, read from the message's attributes")
                .isEqualTo(TRACEPARENT);
        assertThat(receive.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("done");
        return receive;
    }

    private static void assertNestedUnder(StoppedObservations stopped, String step, Observation.Context receive) {
        Observation.Context context = stopped.first(step);
        assertThat(context.getParentObservation())
                .as("%s runs inside the message's receive", step)
                .isNotNull();
        assertThat(context.getParentObservation().getContextView()).isSameAs(receive);
    }
}
