package dev.inbox.benchmarks.adapters;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.rabbitmq.InboxConsumer;
import dev.inbox.rabbitmq.MessageKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * RabbitMQ into PostgreSQL exactly once, with a business insert per message: the hand-written
 * inbox consumer (per message, and per window of deliveries in one transaction acknowledged with
 * {@code multiple=true}) against {@link InboxConsumer#transactional} without and with {@link
 * InboxConsumer.Builder#window}; and the ceiling ({@code no-dedup-batch}): the hand-written window
 * with its inbox insert left out, the business rows alone. Windows are {@value #WINDOW} deliveries with a {@value #LINGER_MS}
 * ms linger, on a prefetch of {@value #PREFETCH}.
 */
final class RabbitTransactional {

    static final int WINDOW = 50;
    static final int PREFETCH = 100;
    static final long LINGER_MS = 10;

    private RabbitTransactional() {}

    /**
     * Subscribes a consumer of {@code variant} on {@code channel}, and returns how many messages it
     * has acknowledged so far.
     */
    static LongSupplier subscribe(
            String variant,
            Channel channel,
            String queue,
            DataSource pool,
            TransactionalInbox inbox,
            String table,
            String handwrittenTable,
            List<AutoCloseable> resources)
            throws IOException {
        channel.basicQos(PREFETCH);
        switch (variant) {
            case "inbox-transactional", "inbox-transactional-batch" -> {
                InboxConsumer.Builder builder = InboxConsumer.transactional(
                                channel, inbox, (delivery, connection) -> business(connection, table, delivery))
                        .keys(MessageKeys.messageId());
                if (variant.equals("inbox-transactional-batch")) {
                    builder.window(WINDOW, Duration.ofMillis(LINGER_MS));
                }
                InboxConsumer consumer = builder.build();
                channel.basicConsume(queue, false, consumer);
                return () -> consumer.counts().acknowledged();
            }
            default -> {
                Handwritten consumer = new Handwritten(
                        channel,
                        pool,
                        table,
                        handwrittenTable,
                        queue,
                        variant.equals("handwritten-per-record") ? 1 : WINDOW,
                        !variant.equals(AdapterThroughput.CEILING));
                resources.add(consumer.flusher::shutdownNow);
                channel.basicConsume(queue, false, consumer);
                return consumer.acked::sum;
            }
        }
    }

    static void business(java.sql.Connection c, String table, Delivery delivery) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
            insert.setString(1, delivery.getProperties().getMessageId());
            insert.setInt(2, Integer.parseInt(new String(delivery.getBody(), StandardCharsets.UTF_8)));
            insert.executeUpdate();
        }
    }

    /**
     * The classic hand-written consumer: per message (or per window, with a timer for a window that
     * does not fill) one JDBC transaction of {@code INSERT … ON CONFLICT DO NOTHING} into an inbox
     * table and the business insert when the row was new (the business insert alone without {@code
     * dedup}: the ceiling), then the acknowledgement — a multiple one for a window, as one consumer
     * alone on its channel can.
     */
    private static final class Handwritten extends DefaultConsumer {
        private final DataSource pool;
        private final String table;
        private final String claims;
        private final String group;
        private final int window;
        private final boolean dedup;
        private final ReentrantLock lock = new ReentrantLock();
        private final List<Delivery> pending = new ArrayList<>();
        final LongAdder acked = new LongAdder();
        final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "handwritten-window");
            t.setDaemon(true);
            return t;
        });

        Handwritten(
                Channel channel,
                DataSource pool,
                String table,
                String claims,
                String group,
                int window,
                boolean dedup) {
            super(channel);
            this.dedup = dedup;
            this.pool = pool;
            this.table = table;
            this.claims = claims;
            this.group = group;
            this.window = window;
            if (window > 1) {
                flusher.scheduleWithFixedDelay(this::flushQuietly, LINGER_MS, LINGER_MS, TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                throws IOException {
            lock.lock();
            try {
                pending.add(new Delivery(envelope, properties, body));
                if (pending.size() >= window) {
                    flush();
                }
            } finally {
                lock.unlock();
            }
        }

        private void flushQuietly() {
            lock.lock();
            try {
                flush();
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException(e);
            } finally {
                lock.unlock();
            }
        }

        private void flush() throws IOException {
            if (pending.isEmpty()) {
                return;
            }
            try (java.sql.Connection c = pool.getConnection();
                    PreparedStatement claim = c.prepareStatement(
                            "INSERT INTO " + claims + " (consumer, id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
                c.setAutoCommit(false);
                for (Delivery delivery : pending) {
                    if (!dedup) {
                        business(c, table, delivery);
                        continue;
                    }
                    claim.setString(1, group);
                    claim.setString(2, delivery.getProperties().getMessageId());
                    if (claim.executeUpdate() == 1) {
                        business(c, table, delivery);
                    }
                }
                c.commit();
                c.setAutoCommit(true);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            getChannel().basicAck(pending.get(pending.size() - 1).getEnvelope().getDeliveryTag(), window > 1);
            acked.add(pending.size());
            pending.clear();
        }
    }
}
