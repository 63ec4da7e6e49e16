package dev.inbox.examples.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import dev.inbox.testing.LambdaEvents;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Both forms of the example as its README runs them, against a real SQS server (ElasticMQ, started
 * by the test) and the real PostgreSQL: shipments sent with their event id, one re-sent by the
 * producer, each recorded once.
 */
class ShipmentsTest {

    private final String run = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final String table = "shipments_" + run;
    private final SqsClient sqs = SqsQueues.client();
    private final String queue = SqsQueues.create(sqs, "shipments", Map.of());
    private final PGSimpleDataSource dataSource = new PGSimpleDataSource();

    ShipmentsTest() {
        dataSource.setUrl(TestServers.postgres());
    }

    @AfterEach
    void cleanUp() throws Exception {
        sqs.deleteQueue(r -> r.queueUrl(queue));
        sqs.close();
        try (Connection c = dataSource.getConnection();
                Statement drop = c.createStatement()) {
            drop.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    private void sendThreeShipments() {
        SqsQueues.send(sqs, queue, "parcel 1 to Alice", "event-id", "s-1");
        SqsQueues.send(sqs, queue, "parcel 2 to Bob", "event-id", "s-2");
        SqsQueues.send(sqs, queue, "parcel 1 to Alice", "event-id", "s-1"); // the producer's re-send
    }

    @Test
    void theLoop_recordsEachShipmentOnce_andSkipsTheReSentOne() throws Exception {
        sendThreeShipments();
        Shipments shipments = new Shipments(sqs, queue, dataSource, "shipping-" + run, table);
        CompletableFuture<Void> running = CompletableFuture.runAsync(shipments::run);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (shipments.counts().processed() + shipments.counts().duplicates() < 3) {
                assertThat(System.nanoTime())
                        .as("all three messages handled within 60 s")
                        .isLessThan(deadline);
                assertThat(running).as("the consumer still runs").isNotDone();
                Thread.sleep(50);
            }
        } finally {
            shipments.close();
            running.get(60, TimeUnit.SECONDS); // the receive in hand (a 20-s long poll at most) ends first
        }
        assertThat(shipments.counts().processed()).isEqualTo(2);
        assertThat(shipments.counts().duplicates()).isEqualTo(1);
        assertThat(rows()).containsExactly("parcel 1 to Alice", "parcel 2 to Bob");
        assertThat(SqsQueues.messagesLeft(sqs, queue))
                .as("every message deleted")
                .isZero();
    }

    @Test
    void theFunction_recordsEachShipmentOnce_andAnswersNoFailures_thenSkipsARedelivery() throws Exception {
        sendThreeShipments();
        List<Message> received = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.size() < 3 && System.nanoTime() < deadline) {
            received.addAll(sqs.receiveMessage(r -> r.queueUrl(queue)
                            .maxNumberOfMessages(10)
                            .waitTimeSeconds(1)
                            .messageAttributeNames("All"))
                    .messages());
        }
        assertThat(received).as("the three messages received").hasSize(3);
        ShipmentsFunction function = new ShipmentsFunction(dataSource, "shipping-" + run, table);

        SQSBatchResponse first = function.handleRequest(
                LambdaEvents.event(received, SqsQueues.arnOf(sqs, queue)), LambdaEvents.context(30_000));
        // Lambda hands the same batch to the function again (its invocation timed out, say): nothing new.
        SQSBatchResponse again = function.handleRequest(
                LambdaEvents.event(received, SqsQueues.arnOf(sqs, queue)), LambdaEvents.context(30_000));

        assertThat(first.getBatchItemFailures()).as("every record done").isEmpty();
        assertThat(again.getBatchItemFailures()).isEmpty();
        assertThat(rows()).containsExactly("parcel 1 to Alice", "parcel 2 to Bob");
    }

    private List<String> rows() throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement select = c.createStatement();
                ResultSet r = select.executeQuery("SELECT shipment FROM " + table + " ORDER BY shipment")) {
            while (r.next()) {
                rows.add(r.getString(1));
            }
        }
        return rows;
    }
}
