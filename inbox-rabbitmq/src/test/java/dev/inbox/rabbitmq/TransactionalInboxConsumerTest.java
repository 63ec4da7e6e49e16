package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The transactional consumer through the real RabbitMQ into PostgreSQL: a consumer that dies inside
 * its transaction (its channel closed by the client library, its messages requeued) leaves neither
 * writes nor record, and every event, re-sent or redelivered, is applied exactly once.
 */
class TransactionalInboxConsumerTest {

    private static final int EVENTS = 40;
    private static final String APPLIED = "inbox_rabbit_applied";

    private static HikariDataSource pool;
    private static PostgresInboxStore store;

    /** A consumer dying mid-transaction: an Error, which nothing in the consumer catches. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    @BeforeAll
    static void database() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        store = PostgresInboxStore.builder(pool)
                .table("inbox_rabbit")
                .sequenceTable("inbox_rabbit_sequence")
                .build();
        store.createSchemaIfMissing();
        try (java.sql.Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + APPLIED + " (run text, event text)");
        }
    }

    @AfterAll
    static void close() {
        store.close();
        pool.close();
    }

    @Test
    void aConsumerDyingInsideItsTransaction_leavesNothing_andEveryEventIsAppliedOnce() throws Exception {
        String run = UUID.randomUUID().toString();
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("rabbit-" + run)
                .build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        String queue = "inbox-test-" + run;
        try (Connection connection = factory.newConnection("inbox-rabbitmq-tx-test")) {
            Channel setup = connection.createChannel();
            // Not auto-deleted: the first consumer's channel closes, and the queue must outlive it.
            setup.queueDeclare(queue, false, false, false, null);
            for (int i = 0; i < EVENTS; i++) {
                publish(setup, queue, "e" + i);
            }
            for (int i = 0; i < EVENTS; i += 4) {
                publish(setup, queue, "e" + i); // the producer's re-sends
            }
            AtomicBoolean crashed = new AtomicBoolean();
            TransactionalMessageHandler apply = (delivery, db) -> {
                String event = delivery.getProperties().getMessageId();
                try (PreparedStatement insert = db.prepareStatement("INSERT INTO " + APPLIED + " VALUES (?, ?)")) {
                    insert.setString(1, run);
                    insert.setString(2, event);
                    insert.executeUpdate();
                }
                if (event.equals("e7") && crashed.compareAndSet(false, true)) {
                    throw new Crash(); // after the write, before the commit
                }
            };
            Channel first = connection.createChannel();
            first.basicQos(5);
            first.basicConsume(
                    queue,
                    false,
                    InboxConsumer.transactional(first, inbox, apply).build());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (first.isOpen() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(crashed).as("the first consumer died").isTrue();
            assertThat(first.isOpen())
                    .as("its channel was closed by the client library")
                    .isFalse();

            Channel second = connection.createChannel();
            second.basicQos(5);
            second.basicConsume(
                    queue,
                    false,
                    InboxConsumer.transactional(second, inbox, apply)
                            .busyRequeueDelay(Duration.ofMillis(50))
                            .build());
            // Ready messages do not count the ones in flight: wait for every event and an empty queue,
            // then a little longer, so that a late extra application would show.
            while ((setup.messageCount(queue) > 0 || applications(run).size() < EVENTS)
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(500);
            second.close();
            assertThat(setup.messageCount(queue))
                    .as("messages left in the queue")
                    .isZero();
        }
        Map<String, Integer> applications = applications(run);
        assertThat(applications).as("distinct events applied").hasSize(EVENTS);
        assertThat(applications.values()).as("applications per event").containsOnly(1);
    }

    @Test
    void transactionalBuilderRejectsNulls() throws Exception {
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, pool).consumer("rabbit-nulls").build();
        assertThatThrownBy(() -> InboxConsumer.transactional(null, inbox, (d, c) -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxConsumer.transactional(null, null, (d, c) -> {}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void publish(Channel channel, String queue, String id) throws Exception {
        AMQP.BasicProperties props =
                new AMQP.BasicProperties.Builder().messageId(id).build();
        channel.basicPublish("", queue, props, ("{\"event\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, Integer> applications(String run) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        try (java.sql.Connection c = pool.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT event, count(*) FROM " + APPLIED + " WHERE run = ? GROUP BY event")) {
            s.setString(1, run);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    counts.put(rows.getString(1), rows.getInt(2));
                }
            }
        }
        return counts;
    }
}
