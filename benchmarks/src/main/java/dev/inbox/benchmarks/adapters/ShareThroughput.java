package dev.inbox.benchmarks.adapters;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.KafkaShareInboxLoop;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.kafka.TransactionalRecordHandler;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Records per second through a Kafka share group (KIP-932), 1 and 4 members: a bare share consumer
 * that ACCEPTs everything, against {@code KafkaShareInboxLoop} and against a hand-written share
 * consumer with a dedup check of its own — on the embedded store (the loop in lease mode on
 * Caffeine; the hand-written one with a concurrent set in memory) and on PostgreSQL (the loop in
 * transactional mode; the hand-written one with {@code INSERT … ON CONFLICT DO NOTHING} on its own
 * table; both insert a business row per record in the same transaction), and the loop's batch form
 * ({@code transactionalBatch}: the records in hand in one transaction, a business row each). The
 * work is the same trivial sum everywhere.
 *
 * <p>Every consumer acknowledges explicitly and commits its acknowledgements ({@code commitSync})
 * once per poll. The rate of a run is counted from the moment a tenth of its records are done to the
 * last, so the share group's join and the warm-up are left out: {@code (records - done at the mark) /
 * (last - mark)}. Variants run in
 * interleaved rounds ({@code --rounds}, each running every variant once, on records of its own),
 * after one warm-up round of every variant that is not reported (it warms the JVM, the broker and
 * the database: without it the first round of every embedded-store variant was its slowest by far),
 * and the report gives each one's median with the rounds' spread (lowest, highest).
 *
 * <pre>{@code
 * java -cp … dev.inbox.benchmarks.adapters.ShareThroughput \
 *     [--messages 100000] [--rounds 5] [--kafka-bootstrap HOST:PORT] [--jdbc-url URL] > adapters-share.json
 * }</pre>
 *
 * <p>A broker of your own must have share groups enabled (Kafka 4.2 or later); without {@code
 * --kafka-bootstrap} a single-node 4.4 broker is started for the run.
 */
public final class ShareThroughput {

    private static final String[] VARIANTS = {
        "bare",
        "handwritten-memory",
        "inbox-caffeine",
        "handwritten-postgres",
        "inbox-postgres-transactional",
        "inbox-postgres-batch"
    };
    private static final String BUSINESS = "adapters_share_business";
    private static final String HANDWRITTEN = "adapters_share_handwritten_inbox";
    private static final int IN_HAND = 100;
    private static final LongAdder SINK = new LongAdder();

    private final int messages;
    private final int rounds;
    private final String jdbcUrl;
    private String bootstrap;

    private ShareThroughput(Map<String, String> args) {
        this.messages = Integer.parseInt(args.getOrDefault("messages", "100000"));
        this.rounds = Integer.parseInt(args.getOrDefault("rounds", "5"));
        this.jdbcUrl = args.getOrDefault("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        this.bootstrap = args.getOrDefault("kafka-bootstrap", "");
        if (messages < 100 || rounds < 1) {
            throw new IllegalArgumentException("--messages must be at least 100 and --rounds at least 1");
        }
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        ShareThroughput run = new ShareThroughput(args);
        KafkaBroker embedded = null;
        if (run.bootstrap.isEmpty()) {
            embedded = KafkaBroker.start();
            run.bootstrap = embedded.bootstrapServers();
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(run.jdbcUrl);
        config.setMaximumPoolSize(6);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            run.createTables(pool);
            Map<String, List<Double>> rates = new LinkedHashMap<>();
            for (int round = 0; round <= run.rounds; round++) { // round 0: the warm-up, not reported
                for (int members : new int[] {1, 4}) {
                    for (String variant : VARIANTS) {
                        double rate = run.measure(variant, members, pool);
                        if (round > 0) {
                            rates.computeIfAbsent(variant + "/" + members, k -> new ArrayList<>())
                                    .add(rate);
                        }
                        System.err.printf(
                                "%s %s x%d: %.0f records/s%n",
                                round == 0 ? "warm-up" : "round " + round, variant, members, rate);
                    }
                }
            }
            System.out.println(
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(run.report(rates, argv)));
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private Map<String, Object> report(Map<String, List<Double>> rates, String[] argv) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, List<Double>> entry : rates.entrySet()) {
            String[] key = entry.getKey().split("/");
            List<Double> sorted = entry.getValue().stream().sorted().toList();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("variant", key[0]);
            row.put("members", Integer.parseInt(key[1]));
            row.put("records", records(key[0]));
            row.put("medianPerSecond", Math.round(median(sorted)));
            row.put("lowestPerSecond", Math.round(sorted.get(0)));
            row.put("highestPerSecond", Math.round(sorted.get(sorted.size() - 1)));
            row.put("rounds", entry.getValue().stream().map(Math::round).toList());
            rows.add(row);
        }
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("command", "ShareThroughput " + String.join(" ", argv));
        report.put("rounds", rounds);
        report.put("warmUpRounds", 1);
        report.put(
                "machine",
                Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version") + ", "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        report.put("rows", rows);
        return report;
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** A tenth of the records for the PostgreSQL variants, most of which commit a transaction per record. */
    private int records(String variant) {
        return variant.contains("postgres") ? messages / 10 : messages;
    }

    private void createTables(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + BUSINESS + " (id text, value int)");
            s.execute("CREATE TABLE IF NOT EXISTS " + HANDWRITTEN + " (consumer text, id text,"
                    + " PRIMARY KEY (consumer, id))");
        }
    }

    /** One run of {@code variant} with {@code members} members on records of its own; its rate. */
    private double measure(String variant, int members, HikariDataSource pool) throws Exception {
        int records = records(variant);
        String topic = "inbox-share-throughput-" + UUID.randomUUID();
        String group = "inbox-share-throughput-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        KafkaClients.configureShareGroup(bootstrap, group, 30_000);
        try (KafkaProducer<String, String> producer = KafkaClients.producer(bootstrap)) {
            for (int i = 0; i < records; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, i % 4, null, Integer.toString(i));
                record.headers().add("ce_id", ("m" + i).getBytes(StandardCharsets.UTF_8));
                record.headers().add("ce_source", "/share".getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
            producer.flush();
        }
        Run run = new Run(variant, group, pool, records);
        List<Thread> threads = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            Thread thread = new Thread(() -> run.member(topic), "share-throughput-member");
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (run.done.sum() < records) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(variant + " x" + members + ": " + run.done.sum() + " of " + records
                        + " records done after 10 minutes");
            }
            Thread.sleep(2);
        }
        long last = System.nanoTime();
        run.stop.set(true);
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        run.close();
        return (records - run.firstCount.get()) / ((last - run.first.get()) / 1e9);
    }

    /** The members of one run, and what they count. */
    private final class Run implements AutoCloseable {
        final String variant;
        final String group;
        final HikariDataSource pool;
        final LongAdder done = new LongAdder();
        final AtomicBoolean stop = new AtomicBoolean();
        final int records;
        /** When a tenth of the records were done, and how many exactly: left out of the rate (the join, the warm-up). */
        final AtomicLong first = new AtomicLong();

        final AtomicLong firstCount = new AtomicLong();
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final CaffeineInboxStore caffeine;
        final PostgresInboxStore postgres;
        final String consumer = "share-throughput-" + UUID.randomUUID();

        Run(String variant, String group, HikariDataSource pool, int records) throws SQLException {
            this.records = records;
            this.variant = variant;
            this.group = group;
            this.pool = pool;
            this.caffeine = variant.equals("inbox-caffeine")
                    ? CaffeineInboxStore.builder().build()
                    : null;
            this.postgres = variant.startsWith("inbox-postgres")
                    ? PostgresInboxStore.builder(pool).table("inbox_adapters").build()
                    : null;
            if (postgres != null) {
                postgres.createSchemaIfMissing();
            }
        }

        void count(int n) {
            done.add(n);
            long total = done.sum();
            if (total >= records / 10 && first.compareAndSet(0, System.nanoTime())) {
                firstCount.set(total);
            }
        }

        void member(String topic) {
            try (KafkaShareConsumer<String, String> share = KafkaClients.shareConsumer(bootstrap, group, IN_HAND)) {
                share.subscribe(List.of(topic));
                if (variant.startsWith("inbox-")) {
                    loop(share);
                } else {
                    handwritten(share);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private void loop(KafkaShareConsumer<String, String> share) {
            KafkaShareInboxLoop.Builder<String, String> builder;
            if (caffeine != null) {
                builder = KafkaShareInboxLoop.lease(
                        share, Inbox.builder(caffeine).consumer(consumer).build(), record -> work(record.value()));
            } else {
                TransactionalInbox inbox = TransactionalInbox.builder(postgres, pool)
                        .consumer(consumer)
                        .build();
                TransactionalRecordHandler<String, String> handler =
                        (record, connection) -> business(connection, record);
                builder = variant.endsWith("batch")
                        ? KafkaShareInboxLoop.transactionalBatch(share, inbox, handler)
                        : KafkaShareInboxLoop.transactional(share, inbox, handler);
            }
            try (KafkaShareInboxLoop<String, String> loop =
                    builder.keys(RecordKeys.cloudEvents()).build()) {
                while (!stop.get()) {
                    count(loop.pollOnce(Duration.ofMillis(50)));
                }
            }
        }

        /** Poll, check and work each record, ACCEPT it, commit the acknowledgements once per poll. */
        private void handwritten(KafkaShareConsumer<String, String> share) throws SQLException {
            while (!stop.get()) {
                ConsumerRecords<String, String> records = share.poll(Duration.ofMillis(50));
                if (records.isEmpty()) {
                    continue;
                }
                for (ConsumerRecord<String, String> record : records) {
                    String id = new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8);
                    switch (variant) {
                        case "bare" -> work(record.value());
                        case "handwritten-memory" -> {
                            if (seen.add(id)) {
                                work(record.value());
                            }
                        }
                        default -> dedupInPostgres(id, record);
                    }
                    share.acknowledge(record, AcknowledgeType.ACCEPT);
                }
                share.commitSync();
                count(records.count());
            }
        }

        /** The classic hand-written inbox: the dedup insert and the business insert in one transaction. */
        private void dedupInPostgres(String id, ConsumerRecord<String, String> record) throws SQLException {
            try (Connection c = pool.getConnection();
                    PreparedStatement claim = c.prepareStatement(
                            "INSERT INTO " + HANDWRITTEN + " (consumer, id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
                c.setAutoCommit(false);
                claim.setString(1, consumer);
                claim.setString(2, id);
                if (claim.executeUpdate() == 1) {
                    business(c, record);
                }
                c.commit();
                c.setAutoCommit(true);
            }
        }

        @Override
        public void close() {
            if (caffeine != null) {
                caffeine.close();
            }
        }
    }

    private static void work(String value) {
        SINK.add(Integer.parseInt(value));
    }

    private static void business(Connection connection, ConsumerRecord<String, String> record) throws SQLException {
        SpringBatchKafka.insert(connection, BUSINESS, record);
    }
}
