package dev.inbox.benchmarks.adapters;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.sqs.SqsInboxLoop;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.sqs.SqsMessage;
import dev.inbox.sqs.TransactionalSqsMessageHandler;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Messages per second through SQS (ElasticMQ started in this JVM, or {@code --sqs-endpoint}): the
 * bare SDK loop (receive ten, work, {@code DeleteMessageBatch}) against {@code SqsInboxLoop} in
 * lease mode on the embedded store; and into PostgreSQL exactly once, with a business insert per
 * message, the hand-written inbox ({@code INSERT … ON CONFLICT DO NOTHING} and the business insert
 * in one JDBC transaction, per message and per receive) against {@code SqsInboxLoop.transactional}
 * and {@code SqsInboxLoop.transactionalBatch}. One and four consumers; each variant consumes unique
 * messages published for it; every variant runs twice and the second round is reported.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.adapters.SqsThroughput \
 *     [--messages 20000] [--sqs-endpoint URL] [--jdbc-url URL] > benchmarks/results/adapters-sqs.json
 * }</pre>
 */
public final class SqsThroughput {

    private static final String[] VARIANTS = {
        "bare",
        "caffeine",
        "handwritten-per-message",
        "handwritten-batch",
        "inbox-transactional",
        "inbox-transactional-batch"
    };
    private static final String BUSINESS = "adapters_sqs_business";
    private static final String HANDWRITTEN = "adapters_sqs_handwritten_inbox";
    private static final LongAdder SINK = new LongAdder();
    /** Within the queues' default visibility timeout (30 s): receives keep the queue's own. */
    private static final Duration LEASE = Duration.ofSeconds(20);

    private final int messages;
    private final String endpoint;
    private final HikariDataSource pool;

    private SqsThroughput(int messages, String endpoint, HikariDataSource pool) {
        this.messages = messages;
        this.endpoint = endpoint;
        this.pool = pool;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        SqsServer embedded = args.containsKey("sqs-endpoint") ? null : SqsServer.start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.getOrDefault("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        config.setMaximumPoolSize(6);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + BUSINESS + " (id text, value int)");
                s.execute("CREATE TABLE IF NOT EXISTS " + HANDWRITTEN + " (consumer text, id text,"
                        + " PRIMARY KEY (consumer, id))");
            }
            SqsThroughput run = new SqsThroughput(
                    Integer.parseInt(args.getOrDefault("messages", "20000")),
                    embedded != null ? embedded.url() : args.get("sqs-endpoint"),
                    pool);
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int round = 0; round < 2; round++) {
                rows.clear();
                for (int consumers : new int[] {1, 4}) {
                    for (String variant : VARIANTS) {
                        rows.add(run.measure(variant, consumers));
                    }
                }
            }
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("messages", run.messages);
            report.put("postgresMessages", run.messages("inbox-transactional"));
            report.put("server", embedded != null ? "ElasticMQ 1.6.11, in this JVM" : run.endpoint);
            report.put("command", "SqsThroughput " + String.join(" ", argv));
            report.put("rows", rows);
            System.out.println(
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /** A quarter of the messages for the variants that write to PostgreSQL. */
    private int messages(String variant) {
        return variant.equals("bare") || variant.equals("caffeine") ? messages : Math.max(1, messages / 4);
    }

    private Map<String, Object> measure(String variant, int consumers) throws Exception {
        int count = messages(variant);
        try (SqsClient admin = SqsQueues.client(endpoint)) {
            String queue = SqsQueues.create(admin, "inbox-throughput", Map.of());
            try {
                publish(admin, queue, count);
                LongAdder consumed = new LongAdder();
                AtomicBoolean done = new AtomicBoolean();
                String consumer = "sqs-throughput-" + UUID.randomUUID();
                List<Thread> threads = new ArrayList<>();
                long start = System.nanoTime();
                for (int c = 0; c < consumers; c++) {
                    Thread t = new Thread(() -> consume(variant, queue, consumer, consumed, done), "sqs-" + variant);
                    t.start();
                    threads.add(t);
                }
                while (consumed.sum() < count) {
                    if (threads.stream().noneMatch(Thread::isAlive)) {
                        throw new IllegalStateException(
                                variant + ": every consumer ended before the queue was consumed");
                    }
                    Thread.sleep(5);
                }
                long nanos = System.nanoTime() - start;
                done.set(true);
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("broker", "sqs");
                row.put("variant", variant);
                row.put("consumers", consumers);
                row.put("messages", count);
                row.put("seconds", Math.round(nanos / 1e6) / 1e3);
                row.put("messagesPerSecond", Math.round(count / (nanos / 1e9)));
                System.err.println(row);
                return row;
            } finally {
                admin.deleteQueue(r -> r.queueUrl(queue));
            }
        }
    }

    private static void publish(SqsClient sqs, String queue, int count) {
        List<SendMessageBatchRequestEntry> batch = new ArrayList<>(10);
        for (int i = 0; i < count; i++) {
            batch.add(SendMessageBatchRequestEntry.builder()
                    .id(Integer.toString(batch.size()))
                    .messageBody(Integer.toString(i))
                    .messageAttributes(Map.of(
                            "event-id",
                            MessageAttributeValue.builder()
                                    .dataType("String")
                                    .stringValue("e" + i)
                                    .build()))
                    .build());
            if (batch.size() == 10 || i == count - 1) {
                List<SendMessageBatchRequestEntry> entries = List.copyOf(batch);
                sqs.sendMessageBatch(r -> r.queueUrl(queue).entries(entries));
                batch.clear();
            }
        }
    }

    private void consume(String variant, String queue, String consumer, LongAdder consumed, AtomicBoolean done) {
        try (SqsClient sqs = SqsQueues.client(endpoint)) {
            switch (variant) {
                case "bare" -> bare(sqs, queue, consumed, done);
                case "handwritten-per-message" -> handwritten(sqs, queue, consumer, consumed, done, false);
                case "handwritten-batch" -> handwritten(sqs, queue, consumer, consumed, done, true);
                default -> viaInbox(variant, sqs, queue, consumer, consumed, done);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Message> receive(SqsClient sqs, String queue) {
        return sqs.receiveMessage(r -> r.queueUrl(queue)
                        .maxNumberOfMessages(10)
                        .waitTimeSeconds(1)
                        .messageAttributeNames("All"))
                .messages();
    }

    private static void delete(SqsClient sqs, String queue, List<Message> received) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < received.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id(Integer.toString(i))
                    .receiptHandle(received.get(i).receiptHandle())
                    .build());
        }
        sqs.deleteMessageBatch(r -> r.queueUrl(queue).entries(entries));
    }

    /** The bare SDK loop: receive ten, work, delete them in one call. */
    private static void bare(SqsClient sqs, String queue, LongAdder consumed, AtomicBoolean done) {
        while (!done.get()) {
            List<Message> received = receive(sqs, queue);
            if (received.isEmpty()) {
                continue;
            }
            for (Message m : received) {
                SINK.add(Integer.parseInt(m.body()));
            }
            delete(sqs, queue, received);
            consumed.add(received.size());
        }
    }

    /** The classic hand-written inbox: an insert that does nothing on conflict, then the business insert. */
    private void handwritten(
            SqsClient sqs, String queue, String consumer, LongAdder consumed, AtomicBoolean done, boolean perReceive)
            throws SQLException {
        while (!done.get()) {
            List<Message> received = receive(sqs, queue);
            if (received.isEmpty()) {
                continue;
            }
            try (Connection c = pool.getConnection();
                    PreparedStatement claim = c.prepareStatement(
                            "INSERT INTO " + HANDWRITTEN + " (consumer, id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
                c.setAutoCommit(false);
                for (Message m : received) {
                    claim.setString(1, consumer);
                    claim.setString(2, m.messageAttributes().get("event-id").stringValue());
                    if (claim.executeUpdate() == 1) {
                        business(c, m.body());
                    }
                    if (!perReceive) {
                        c.commit();
                    }
                }
                c.commit();
                c.setAutoCommit(true);
            }
            delete(sqs, queue, received);
            consumed.add(received.size());
        }
    }

    private void viaInbox(
            String variant, SqsClient sqs, String queue, String consumer, LongAdder consumed, AtomicBoolean done)
            throws SQLException {
        SqsInboxLoop.Builder builder;
        CaffeineInboxStore caffeine = null;
        if (variant.equals("caffeine")) {
            caffeine = CaffeineInboxStore.builder().build();
            builder = SqsInboxLoop.lease(
                    sqs,
                    queue,
                    Inbox.builder(caffeine).consumer(consumer).lease(LEASE).build(),
                    m -> SINK.add(Integer.parseInt(m.body())));
        } else {
            PostgresInboxStore store =
                    PostgresInboxStore.builder(pool).table("inbox_adapters_sqs").build();
            store.createSchemaIfMissing();
            TransactionalInbox inbox =
                    TransactionalInbox.builder(store, pool).consumer(consumer).build();
            TransactionalSqsMessageHandler handler = (SqsMessage m, Connection c) -> business(c, m.body());
            builder = variant.equals("inbox-transactional")
                    ? SqsInboxLoop.transactional(sqs, queue, inbox, handler)
                    : SqsInboxLoop.transactionalBatch(sqs, queue, inbox, handler);
        }
        SqsInboxLoop loop = builder.keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        try {
            long counted = 0;
            while (!done.get()) {
                loop.pollOnce();
                long deleted = loop.counts().acknowledged(); // counted once deleted, as the bare loops count
                consumed.add(deleted - counted);
                counted = deleted;
            }
        } finally {
            if (caffeine != null) {
                caffeine.close();
            }
        }
    }

    private static void business(Connection c, String body) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + BUSINESS + " VALUES (?, ?)")) {
            insert.setString(1, "sqs-" + body);
            insert.setInt(2, Integer.parseInt(body));
            insert.executeUpdate();
        }
    }
}
