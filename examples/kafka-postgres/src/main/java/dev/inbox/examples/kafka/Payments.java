package dev.inbox.examples.kafka;

import dev.inbox.Deliveries;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.KafkaInboxLoop;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.postgres.PostgresInboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The README's first example as a whole program: consumes payments from the Kafka topic {@code
 * payments} and posts each to the {@code ledger} table in PostgreSQL — once per event, however often
 * Kafka redelivers it or the producer re-sends it. The claim and the ledger row commit in one
 * transaction, then the offset is committed. Each record carries its event id in the {@code
 * event-id} header; see this example's README for how to send one.
 *
 * <p>Run: {@code ./mvnw -q -pl examples/kafka-postgres -am compile exec:java}, with Kafka on {@code
 * KAFKA_BOOTSTRAP} (default {@code 127.0.0.1:9092}) and PostgreSQL on {@code JDBC_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}).
 */
public final class Payments implements AutoCloseable {

    private final KafkaInboxLoop<String, String> loop;

    /**
     * A consumer of {@code topic} in the consumer group {@code group}, posting to the table {@code
     * ledger}: creates the inbox table and the ledger table when they are missing.
     */
    public Payments(String bootstrap, DataSource dataSource, String topic, String group, String ledger)
            throws SQLException {
        PostgresInboxStore store = PostgresInboxStore.builder(dataSource).build();
        store.createSchemaIfMissing(); // the inbox table, once
        try (Connection c = dataSource.getConnection();
                Statement create = c.createStatement()) {
            // No unique key on purpose: a payment posted twice would show as two rows.
            create.execute("CREATE TABLE IF NOT EXISTS " + ledger + " (payment text NOT NULL)");
        }
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, dataSource).consumer(group).build();
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(
                        "bootstrap.servers",
                        bootstrap,
                        "group.id",
                        group,
                        "enable.auto.commit",
                        "false",
                        "auto.offset.reset",
                        "earliest"), // a new group starts at the topic's beginning
                new StringDeserializer(),
                new StringDeserializer());
        loop = KafkaInboxLoop.transactional(consumer, inbox, (record, connection) -> {
                    try (PreparedStatement post =
                            connection.prepareStatement("INSERT INTO " + ledger + " (payment) VALUES (?)")) {
                        post.setString(1, record.value());
                        post.executeUpdate(); // the claim's transaction: both commit, or neither
                    }
                })
                .keys(RecordKeys.header("event-id")) // the id your producer sends with every copy
                .build();
        loop.subscribe(List.of(topic));
    }

    /**
     * Consumes until {@link #close()}; offsets are committed after each transaction.
     *
     * @throws IllegalStateException for a record without an {@code event-id} header: nothing past it
     *     is committed, so it is never skipped
     */
    public void run() {
        loop.run(Duration.ofMillis(500));
    }

    /** What the loop did: applied, skipped as duplicates, and so on. */
    public Deliveries counts() {
        return loop.counts();
    }

    /** Stops {@link #run()} after the record in hand, which is finished and committed. */
    @Override
    public void close() {
        loop.stop();
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource(); // or your pool
        dataSource.setUrl(env("JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        Payments payments =
                new Payments(env("KAFKA_BOOTSTRAP", "127.0.0.1:9092"), dataSource, "payments", "billing", "ledger");
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            payments.close();
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        System.out.println("consuming payments; send each with an event-id header (see the README), Ctrl-C stops");
        try {
            payments.run();
        } catch (IllegalStateException noKey) {
            System.err.println(noKey.getMessage());
            System.err.println("every payment needs its event id in the event-id header, for example:"
                    + " kafka-console-producer.sh --bootstrap-server 127.0.0.1:9092 --topic payments"
                    + " --property parse.headers=true, then type: event-id:p-1<TAB>42.00 EUR to Alice");
            System.exit(1);
        }
        System.out.println("stopped: " + payments.counts());
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value;
    }
}
