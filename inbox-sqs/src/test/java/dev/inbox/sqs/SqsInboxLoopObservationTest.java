package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.StoppedObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.ReceiverContext;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The SQS loop observed through the real SQS server: each message's receive reads the publisher's
 * trace context from its attributes, and its work is a child of it; the receive's claimAll is a span
 * of its own.
 */
class SqsInboxLoopObservationTest {

    @Test
    void eachMessageIsReceivedFromItsAttributes_andItsWorkNestsUnderIt() {
        StoppedObservations stopped = new StoppedObservations();
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        try (SqsClient sqs = SqsQueues.client();
                CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            String queue = SqsQueues.create(sqs, "inbox-observed", Map.of());
            try {
                sqs.sendMessage(r -> r.queueUrl(queue)
                        .messageBody("{\"order\":1}")
                        .messageAttributes(Map.of(
                                "traceparent",
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue(traceparent)
                                        .build())));
                Inbox inbox = Inbox.builder(store)
                        .consumer("sqs-observed")
                        .observer(ObservationInboxObserver.of(stopped.registry()))
                        .build();
                int[] applied = {0};
                SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> applied[0]++)
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

        Observation.Context receive = stopped.first("inbox.receive");
        assertThat(receive).isInstanceOf(ReceiverContext.class);
        @SuppressWarnings("unchecked")
        Function<String, String> carrier = ((ReceiverContext<Function<String, String>>) receive).getCarrier();
        assertThat(carrier.apply("traceparent"))
                .as("the publisher's trace context, read from the message's attributes")
                .isEqualTo(traceparent);
        assertThat(receive.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("done");
        Observation.Context work = stopped.first("inbox.work");
        assertThat(work.getParentObservation())
                .as("the work runs inside the message's receive")
                .isNotNull();
        assertThat(work.getParentObservation().getContextView()).isSameAs(receive);
        assertThat(stopped.first("inbox.claimAll").getParentObservation())
                .as("the receive's claim is not inside one message's receive")
                .isNull();
    }
}
