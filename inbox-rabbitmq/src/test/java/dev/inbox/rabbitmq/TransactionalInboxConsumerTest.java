package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.keys.DedupKeys;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RabbitQueues;
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

    /**
     * A window of deliveries commits in one transaction: the handler sees the same transaction id
     * for many messages (one per message without windows), and every event, re-sends included, is
     * applied once; a handler failing inside a window rolls it back and only the failing message
     * waits for its retry.
     */
    @Test
    void aWindow_appliesManyMessagesInOneTransaction_andAFailureRollsItBackToFailAlone() throws Exception {
        String run = UUID.randomUUID().toString();
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("rabbit-window-" + run)
                .build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        String queue = "inbox-test-" + run;
        int events = 150;
        java.util.Set<Long> transactions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        try (Connection connection = factory.newConnection("inbox-rabbitmq-window-test")) {
            Channel setup = connection.createChannel();
            setup.queueDeclare(queue, false, true, false, null);
            for (int i = 0; i < events; i++) {
                publish(setup, queue, "e" + i);
            }
            int resends = 0;
            for (int i = 0; i < events; i += 4) {
                publish(setup, queue, "e" + i);
                resends++;
            }
            Channel channel = connection.createChannel();
            channel.basicQos(60);
            InboxConsumer consumer = InboxConsumer.transactional(channel, inbox, (delivery, db) -> {
                        String event = delivery.getProperties().getMessageId();
                        try (PreparedStatement insert = db.prepareStatement(
                                "INSERT INTO " + APPLIED + " VALUES (?, ?) RETURNING txid_current()")) {
                            insert.setString(1, run);
                            insert.setString(2, event);
                            try (ResultSet txid = insert.executeQuery()) {
                                txid.next();
                                transactions.add(txid.getLong(1));
                            }
                        }
                        if (event.equals("e37") && failures.getAndIncrement() < 2) {
                            throw new IllegalStateException("planned: e37's work fails twice");
                        }
                    })
                    .window(25, Duration.ofMillis(20))
                    .busyRequeueDelay(Duration.ofMillis(50))
                    .build();
            channel.basicConsume(queue, false, consumer);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while ((consumer.counts().acknowledged() < events + resends
                            || applications(run).size() < events)
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(300);
            assertThat(consumer.stop(Duration.ofSeconds(10))).isTrue();
            assertThat(setup.messageCount(queue))
                    .as("messages left in the queue")
                    .isZero();
            assertThat(consumer.counts().processed()).as("processed").isEqualTo(events);
            assertThat(consumer.counts().failed())
                    .as("failed attempts of a message alone")
                    .isEqualTo(1);
        }
        Map<String, Integer> applications = applications(run);
        assertThat(applications).as("distinct events applied").hasSize(events);
        assertThat(applications.values()).as("applications per event").containsOnly(1);
        assertThat(failures)
                .as("e37's attempts: in the window, alone, alone again")
                .hasValue(3);
        // Without windows: one transaction per message that ran (more than 150). The rolled-back
        // window's transaction and the one-by-one retries of its messages add at most 26.
        assertThat(transactions)
                .as("transactions that ran the work of %s events", events)
                .hasSizeLessThanOrEqualTo(events / 25 * 3 + 26);
    }

    /**
     * An Error in a window applied after its linger (off the delivery thread, where amqp-client would
     * not see it): the window rolls back, the channel is closed as amqp-client closes it for an Error
     * thrown by a delivery, and the next consumer applies every event once.
     */
    @Test
    void anErrorInALingeringWindow_closesTheChannel_andLosesNothing() throws Exception {
        String run = UUID.randomUUID().toString();
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("rabbit-window-error-" + run)
                .build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        String queue = "inbox-test-" + run;
        AtomicBoolean crashed = new AtomicBoolean();
        TransactionalMessageHandler apply = (delivery, db) -> {
            String event = delivery.getProperties().getMessageId();
            try (PreparedStatement insert = db.prepareStatement("INSERT INTO " + APPLIED + " VALUES (?, ?)")) {
                insert.setString(1, run);
                insert.setString(2, event);
                insert.executeUpdate();
            }
            if (event.equals("e1") && crashed.compareAndSet(false, true)) {
                throw new Crash();
            }
        };
        try (Connection connection = factory.newConnection("inbox-rabbitmq-window-error")) {
            Channel setup = connection.createChannel();
            setup.queueDeclare(queue, false, false, false, null);
            Channel first = connection.createChannel();
            first.basicQos(20);
            first.basicConsume(
                    queue,
                    false,
                    InboxConsumer.transactional(first, inbox, apply)
                            .window(10, Duration.ofMillis(30))
                            .build());
            for (int i = 0; i < 3; i++) {
                publish(setup, queue, "e" + i); // three of a window of ten: applied after the linger
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (first.isOpen() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(crashed).as("the window's work threw").isTrue();
            assertThat(first.isOpen())
                    .as("the first consumer's channel, closed")
                    .isFalse();
            assertThat(applications(run)).as("writes of the rolled-back window").isEmpty();
            Channel second = connection.createChannel();
            second.basicQos(20);
            InboxConsumer next = InboxConsumer.transactional(second, inbox, apply)
                    .window(10, Duration.ofMillis(30))
                    .build();
            second.basicConsume(queue, false, next);
            while (next.counts().acknowledged() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(200);
            assertThat(next.stop(Duration.ofSeconds(10))).isTrue();
            assertThat(setup.messageCount(queue))
                    .as("messages left in the queue")
                    .isZero();
            setup.queueDelete(queue);
        }
        assertThat(applications(run))
                .containsOnlyKeys("e0", "e1", "e2")
                .containsValues(1)
                .doesNotContainValue(2);
    }

    /**
     * A window is acknowledged with one multiple acknowledgement only where that settles nothing
     * else: here another consumer on the same channel holds its deliveries unacknowledged, with
     * delivery tags below the window's, and must find all of them back in its queue.
     */
    @Test
    void aWindowOnAChannelSharedWithAnotherConsumer_neverAcknowledgesItsDeliveries() throws Exception {
        String run = UUID.randomUUID().toString();
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("rabbit-window-shared-" + run)
                .build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        String ours = "inbox-test-" + run;
        String theirs = "inbox-test-other-" + run;
        try (Connection connection = factory.newConnection("inbox-rabbitmq-window-shared")) {
            Channel setup = connection.createChannel();
            setup.queueDeclare(ours, false, false, false, null);
            setup.queueDeclare(theirs, false, false, false, null);
            for (int i = 0; i < 5; i++) {
                publish(setup, theirs, "other" + i);
            }
            Channel shared = connection.createChannel();
            shared.basicQos(50);
            java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();
            shared.basicConsume(theirs, false, new com.rabbitmq.client.DefaultConsumer(shared) {
                @Override
                public void handleDelivery(
                        String tag, com.rabbitmq.client.Envelope envelope, AMQP.BasicProperties p, byte[] body) {
                    held.incrementAndGet(); // never acknowledged
                }
            });
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (held.get() < 5 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            InboxConsumer consumer = InboxConsumer.transactional(shared, inbox, (delivery, db) -> {})
                    .window(10, Duration.ofMillis(20))
                    .build();
            shared.basicConsume(ours, false, consumer);
            for (int i = 0; i < 20; i++) {
                publish(setup, ours, "e" + i);
            }
            while (consumer.counts().acknowledged() < 20 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(consumer.counts().processed()).as("processed").isEqualTo(20);
            shared.close(); // what the other consumer held goes back to its queue
            assertThat(setup.messageCount(theirs))
                    .as("the other consumer's deliveries back in its queue: none acknowledged by the window")
                    .isEqualTo(5);
            setup.queueDelete(ours);
            setup.queueDelete(theirs);
        }
    }

    @Test
    void aWindowIsTransactionalOnly_andChecksItsArguments() throws Exception {
        TransactionalInbox inbox = TransactionalInbox.builder(store, pool)
                .consumer("rabbit-window-args")
                .build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        try (Connection connection = factory.newConnection("inbox-rabbitmq-window-args")) {
            Channel channel = connection.createChannel();
            InboxConsumer.Builder transactional = InboxConsumer.transactional(channel, inbox, (d, c) -> {});
            assertThatThrownBy(() -> transactional.window(0, Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 1");
            assertThatThrownBy(() -> transactional.window(10, null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> transactional.window(10, Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            dev.inbox.Inbox lease = dev.inbox.Inbox.builder(
                            dev.inbox.caffeine.CaffeineInboxStore.builder().build())
                    .consumer("rabbit-window-lease")
                    .build();
            assertThatThrownBy(
                            () -> InboxConsumer.builder(channel, lease, d -> {}).window(10, Duration.ofMillis(5)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("transactional mode");
        }
    }

    /**
     * A window's BUSY delivery (its event held by a lease-mode delivery on the same store) on a quorum
     * queue whose {@code x-delivery-limit} is 3: each requeue counts towards the limit, so a window
     * that requeued it dead-lettered the event unapplied; held in place, it is applied once the holder
     * lets go, and the rest of the window is applied and acknowledged meanwhile.
     */
    @Test
    void aWindowOnAQuorumQueueWithADeliveryLimit_holdsABusyMessageLongerThanTheLimit_andAppliesItOnce()
            throws Exception {
        String run = UUID.randomUUID().toString();
        String consumerName = "rabbit-window-quorum-" + run;
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, pool).consumer(consumerName).build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        String queue = "inbox-test-quorum-" + run;
        OwnerToken holder = OwnerToken.random();
        InboxKey held = InboxKey.of(consumerName, DedupKeys.amqp("held"));
        assertThat(store.claim(ClaimRequest.of(held, holder, Duration.ofMinutes(5)))
                        .isAcquired())
                .isTrue();
        try (Connection connection = factory.newConnection("inbox-rabbitmq-window-quorum-test")) {
            Channel setup = connection.createChannel();
            setup.queueDeclare(queue + "-dead", false, true, false, null);
            setup.queueDeclare(queue, true, false, false, RabbitQueues.quorumDeadLetteringTo(queue + "-dead", 3));
            try {
                publish(setup, queue, "before");
                publish(setup, queue, "held");
                publish(setup, queue, "after");
                Channel channel = connection.createChannel();
                channel.basicQos(20);
                InboxConsumer consumer = InboxConsumer.transactional(channel, inbox, (delivery, db) -> {
                            try (PreparedStatement insert =
                                    db.prepareStatement("INSERT INTO " + APPLIED + " VALUES (?, ?)")) {
                                insert.setString(1, run);
                                insert.setString(2, delivery.getProperties().getMessageId());
                                insert.executeUpdate();
                            }
                        })
                        .window(4, Duration.ofMillis(20))
                        .busyRequeueDelay(Duration.ofMillis(50))
                        .build();
                channel.basicConsume(queue, false, consumer);
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (consumer.counts().busy() < 8 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(consumer.counts().busy())
                        .as("BUSY answers, past the delivery limit of 3")
                        .isGreaterThanOrEqualTo(8);
                assertThat(applications(run)).as("applied while one is held").containsOnlyKeys("before", "after");
                assertThat(store.release(held, holder)).isTrue(); // the other attempt failed and let go
                while (!applications(run).containsKey("held") && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(applications(run))
                        .as("applications per event")
                        .isEqualTo(Map.of("before", 1, "held", 1, "after", 1));
                assertThat(consumer.stop(Duration.ofSeconds(10))).isTrue();
                assertThat(setup.messageCount(queue + "-dead"))
                        .as("dead-lettered")
                        .isZero();
                assertThat(setup.messageCount(queue)).as("left in the queue").isZero();
            } finally {
                try (Channel cleanup = connection.createChannel()) {
                    cleanup.queueDelete(queue);
                }
            }
        }
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
