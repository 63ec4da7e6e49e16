package dev.inbox.examples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.KafkaBroker;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The example as its README runs it, against a real Kafka broker and the real PostgreSQL: payments
 * sent with their event id, one of them re-sent by the producer, each posted to the ledger once.
 */
class PaymentsTest {

    @Test
    void eachPaymentIsPostedOnce_andTheReSentOneIsSkipped() throws Exception {
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String topic = "payments-" + run;
        String ledger = "ledger_" + run;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", KafkaBroker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", KafkaBroker.bootstrap()), new StringSerializer(), new StringSerializer())) {
            send(producer, topic, "p-1", "42.00 EUR to Alice");
            send(producer, topic, "p-2", "7.50 EUR to Bob");
            send(producer, topic, "p-1", "42.00 EUR to Alice"); // the producer's re-send after a timeout
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(TestServers.postgres());
        Payments payments = new Payments(KafkaBroker.bootstrap(), dataSource, topic, "billing-" + run, ledger);
        CompletableFuture<Void> running = CompletableFuture.runAsync(payments::run);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (payments.counts().processed() + payments.counts().duplicates() < 3) {
                assertThat(System.nanoTime())
                        .as("all three records handled within 60 s")
                        .isLessThan(deadline);
                assertThat(running).as("the consumer still runs").isNotDone();
                Thread.sleep(50);
            }
        } finally {
            payments.close();
            running.get(30, TimeUnit.SECONDS);
        }
        assertThat(payments.counts().processed()).isEqualTo(2);
        assertThat(payments.counts().duplicates()).isEqualTo(1);
        assertThat(rows(dataSource, ledger)).containsExactly("42.00 EUR to Alice", "7.50 EUR to Bob");
        try (Connection c = dataSource.getConnection();
                Statement drop = c.createStatement()) {
            drop.execute("DROP TABLE " + ledger);
        }
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String id, String payment)
            throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, payment);
        record.headers().add("event-id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(30, TimeUnit.SECONDS);
    }

    private static List<String> rows(PGSimpleDataSource dataSource, String ledger) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement select = c.createStatement();
                ResultSet r = select.executeQuery("SELECT payment FROM " + ledger + " ORDER BY payment")) {
            while (r.next()) {
                rows.add(r.getString(1));
            }
        }
        return rows;
    }
}
