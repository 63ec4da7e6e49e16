package dev.inbox.benchmarks.adapters;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.benchmarks.report.Spread;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.kafka.KafkaInboxLoop;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.kafka.TransactionalRecordHandler;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.rabbitmq.InboxConsumer;
import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;

/**
 * Messages per second through each broker: the bare client loop (Kafka: poll, work, {@code
 * commitSync} per poll; RabbitMQ: a manual-ack consumer, work, {@code basicAck}) against the inbox
 * adapter doing the same work in lease mode ({@code KafkaInboxLoop}, {@code InboxConsumer}) on the
 * embedded store and on PostgreSQL, with one and with four consumers. The work is the same trivial
 * sum everywhere, so the difference is the adapter's and the store's. Each variant consumes unique
 * messages published for it ({@code --messages}, a tenth of them for the PostgreSQL variants, which
 * are two orders of magnitude slower). After a warm-up round (the JVM, the broker, the database),
 * {@code --rounds} rounds (3 by default) each run every variant, in an order rotated by one each
 * round; each variant's figure is the median of its rounds, with the lowest and highest, and a
 * ratio between two variants gets a verdict only when their rounds do not overlap.
 *
 * <p>Kafka into PostgreSQL exactly once, with a business insert per message and the database's
 * default durability ({@code synchronous_commit=on}): the classic hand-written inbox loop ({@code
 * INSERT … ON CONFLICT DO NOTHING} and the business insert in one JDBC transaction) per record
 * ({@code handwritten-per-record}) and per poll ({@code handwritten-batch}), against {@code
 * KafkaInboxLoop.transactional} ({@code inbox-transactional}, a transaction per record) and {@code
 * KafkaInboxLoop.transactionalBatch} ({@code inbox-transactional-batch}, a transaction per partition
 * of a poll). The same four through RabbitMQ ({@link RabbitTransactional}): the hand-written consumer per
 * message and per window of deliveries, against {@code InboxConsumer.transactional} without and with
 * windows. And the ceiling for both ({@code no-dedup-batch}): the same business rows per poll or
 * window in one transaction with no dedup at all — what effectively-once is reported as a ratio of.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.adapters.AdapterThroughput \
 *     [--messages 200000] [--rounds 3] [--kafka-bootstrap HOST:PORT] [--amqp-uri URI] [--jdbc-url URL] \
 *     > adapters.json
 * }</pre>
 *
 * <p>{@code --only transactional} runs the transactional variants alone, through both brokers;
 * {@code --only per-poll} runs Kafka in lease mode with and without {@code completePerPoll()}.
 */
public final class AdapterThroughput {

    private static final LongAdder SINK = new LongAdder();

    /**
     * Kafka into PostgreSQL with a business insert per message, exactly once: the classic
     * hand-written inbox loop (per record, and per poll in one transaction) against ours.
     */
    /** A Spring Kafka batch listener joined to a {@code DataSourceTransactionManager} (Kafka only). */
    private static final String SPRING_BATCH = "spring-batch";

    /** The ceiling: the same business rows per poll (Kafka) or window (RabbitMQ), no dedup at all. */
    static final String CEILING = "no-dedup-batch";

    private static final String[] TRANSACTIONAL = {
        "handwritten-per-record",
        "handwritten-batch",
        "inbox-transactional",
        "inbox-transactional-batch",
        SPRING_BATCH,
        CEILING
    };

    /**
     * Kafka in lease mode, each claim completed after its record against a poll's claims completed
     * together ({@code KafkaInboxLoop.Builder.completePerPoll()}), on the embedded store and on
     * PostgreSQL.
     */
    private static final String[] PER_POLL = {"caffeine", "caffeine-per-poll", "postgres", "postgres-per-poll"};

    private static final String BUSINESS = "adapters_business";
    private static final String HANDWRITTEN = "adapters_handwritten_inbox";

    private final int messages;
    private final String amqpUri;
    private final String jdbcUrl;
    private final String only;
    private String bootstrap;

    private AdapterThroughput(Map<String, String> args) {
        this.messages = Integer.parseInt(args.getOrDefault("messages", "200000"));
        this.amqpUri = args.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672");
        this.jdbcUrl = args.getOrDefault("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        this.bootstrap = args.getOrDefault("kafka-bootstrap", "");
        this.only = args.getOrDefault("only", "all");
        if (!List.of("all", "transactional", "per-poll").contains(only)) {
            throw new IllegalArgumentException("--only takes all, transactional or per-poll, not " + only);
        }
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        AdapterThroughput run = new AdapterThroughput(args);
        int rounds = Integer.parseInt(args.getOrDefault("rounds", "3"));
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, not " + rounds);
        }
        KafkaBroker embedded = null;
        if (run.bootstrap.isEmpty()) {
            embedded = KafkaBroker.start();
            run.bootstrap = embedded.bootstrapServers();
        }
        try {
            List<Variant> variants = run.variants();
            Map<String, List<Map<String, Object>>> measured = new LinkedHashMap<>();
            variants.forEach(v -> measured.put(v.name(), new ArrayList<>()));
            // A warm-up round (the JVM, the broker, the database), then the measured rounds, each
            // running every variant in an order rotated by one from the round before.
            for (int round = 0; round <= rounds; round++) {
                for (int k = 0; k < variants.size(); k++) {
                    Variant variant = variants.get((k + round) % variants.size());
                    Map<String, Object> row = variant.run().call();
                    if (round > 0) {
                        measured.get(variant.name()).add(row);
                    }
                }
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            measured.values().forEach(r -> rows.add(summary(r)));
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("messages", run.messages);
            report.put("postgresMessages", run.messages(("postgres")));
            report.put("command", "AdapterThroughput " + String.join(" ", argv));
            report.put("rounds", rounds);
            report.put(
                    "what",
                    "messagesPerSecond is the median of the measured rounds (after a warm-up round), with the"
                            + " lowest and highest; every round runs every variant, in an order rotated by one each round");
            report.put("rows", rows);
            if (!run.only.equals("per-poll")) {
                report.put("ratios", ratios(rows));
            }
            System.out.println(
                    new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /** One variant of the run: its name ({@code broker/variant/consumers}) and how to run it once. */
    private record Variant(String name, java.util.concurrent.Callable<Map<String, Object>> run) {}

    /** The variants {@code --only} selects, each with one and with four consumers. */
    private List<Variant> variants() {
        List<Variant> variants = new ArrayList<>();
        for (int consumers : new int[] {1, 4}) {
            if (only.equals("per-poll")) {
                for (String variant : PER_POLL) {
                    variants.add(new Variant("kafka/" + variant + "/" + consumers, () -> kafka(variant, consumers)));
                }
                continue;
            }
            if (!only.equals("transactional")) {
                for (String variant : new String[] {"bare", "caffeine", "postgres"}) {
                    variants.add(new Variant("kafka/" + variant + "/" + consumers, () -> kafka(variant, consumers)));
                    variants.add(
                            new Variant("rabbitmq/" + variant + "/" + consumers, () -> rabbit(variant, consumers)));
                }
            }
            for (String variant : TRANSACTIONAL) {
                variants.add(new Variant("kafka/" + variant + "/" + consumers, () -> kafka(variant, consumers)));
                if (!variant.equals(SPRING_BATCH)) {
                    variants.add(new Variant(
                            "rabbitmq/" + variant + "/" + consumers, () -> rabbitTransactional(variant, consumers)));
                }
            }
        }
        return variants;
    }

    /** One variant's rounds as one row: the median rate, the lowest and highest, every round's. */
    private static Map<String, Object> summary(List<Map<String, Object>> rounds) {
        Map<String, Object> row = new LinkedHashMap<>(rounds.get(0));
        List<Double> rates = perSecond(rounds);
        row.remove("seconds");
        row.put("messagesPerSecond", Math.round(Spread.median(rates)));
        row.put("lowest", Math.round(Collections.min(rates)));
        row.put("highest", Math.round(Collections.max(rates)));
        row.put("rounds", rates.stream().map(Math::round).toList());
        return row;
    }

    private static List<Double> perSecond(List<Map<String, Object>> rounds) {
        return rounds.stream()
                .map(r -> ((Number) r.get("messagesPerSecond")).doubleValue())
                .toList();
    }

    /**
     * For each broker and consumer count, the lease-mode adapter on the embedded store against the
     * bare loop, and the transactional variants against each other and against the ceiling ({@code
     * no-dedup-batch}: the same business rows per poll or window, no dedup at all): the ratio of
     * medians, with a verdict only where the rounds do not overlap.
     */
    private static List<Map<String, Object>> ratios(List<Map<String, Object>> rows) {
        String[][] pairs = {
            {"caffeine", "bare"},
            {"inbox-transactional-batch", "inbox-transactional"},
            {"inbox-transactional-batch", "handwritten-batch"},
            {"inbox-transactional-batch", CEILING},
            {"handwritten-batch", CEILING},
            {SPRING_BATCH, CEILING}
        };
        List<Map<String, Object>> ratios = new ArrayList<>();
        for (String broker : new String[] {"kafka", "rabbitmq"}) {
            for (int consumers : new int[] {1, 4}) {
                for (String[] pair : pairs) {
                    Map<String, Object> a = find(rows, broker, pair[0], consumers);
                    Map<String, Object> b = find(rows, broker, pair[1], consumers);
                    if (a == null || b == null) {
                        continue;
                    }
                    Map<String, Object> ratio = new LinkedHashMap<>();
                    ratio.put("broker", broker);
                    ratio.put("consumers", consumers);
                    ratio.put("of", pair[0] + " / " + pair[1]);
                    ratio.put(
                            "ratio",
                            Math.round(((Number) a.get("messagesPerSecond")).doubleValue()
                                            / ((Number) b.get("messagesPerSecond")).doubleValue()
                                            * 100)
                                    / 100.0);
                    ratio.put(
                            "verdict",
                            rates(a).size() < 2
                                    ? "no verdict: one round, no spread"
                                    : Spread.verdict(
                                            rates(a),
                                            rates(b),
                                            "higher, outside the spread",
                                            "lower, outside the spread"));
                    ratios.add(ratio);
                }
            }
        }
        return ratios;
    }

    private static @Nullable Map<String, Object> find(
            List<Map<String, Object>> rows, String broker, String variant, int consumers) {
        return rows.stream()
                .filter(r -> r.get("broker").equals(broker)
                        && r.get("variant").equals(variant)
                        && r.get("consumers").equals(consumers))
                .findFirst()
                .orElse(null);
    }

    @SuppressWarnings("unchecked")
    private static List<Double> rates(Map<String, Object> row) {
        return ((List<Long>) row.get("rounds")).stream().map(Long::doubleValue).toList();
    }

    /** The work every variant does for a message: the same, and nearly nothing. */
    private static void work(String value) {
        SINK.add(Integer.parseInt(value));
    }

    /**
     * How many messages a variant consumes: a tenth for those that pay a durable write per message
     * (PostgreSQL in lease mode, one transaction per record), a quarter for one transaction per poll.
     */
    private int messages(String variant) {
        return switch (variant) {
            case "postgres", "handwritten-per-record", "inbox-transactional" -> Math.max(1, messages / 10);
            case "handwritten-batch", "inbox-transactional-batch", SPRING_BATCH, CEILING, "postgres-per-poll" ->
                Math.max(1, messages / 4);
            default -> messages;
        };
    }

    private HikariDataSource pool(List<AutoCloseable> resources) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(6);
        HikariDataSource pool = new HikariDataSource(config);
        resources.add(pool);
        return pool;
    }

    private Map<String, Object> row(String broker, String variant, int consumers, long nanos) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("broker", broker);
        row.put("variant", variant);
        row.put("consumers", consumers);
        row.put("messages", messages(variant));
        row.put("seconds", Math.round(nanos / 1e6) / 1e3);
        row.put("messagesPerSecond", Math.round(messages(variant) / (nanos / 1e9)));
        System.err.println(row);
        return row;
    }

    /** A fresh inbox for one variant, or null for the bare loop; closed by the caller's resources. */
    private Inbox inbox(String variant, List<AutoCloseable> resources) {
        InboxStore store;
        switch (variant.replace("-per-poll", "")) {
            case "bare" -> {
                return null;
            }
            case "caffeine" -> store = CaffeineInboxStore.builder().build();
            default -> {
                HikariDataSource pool = pool(resources);
                PostgresInboxStore postgres =
                        PostgresInboxStore.builder(pool).table("inbox_adapters").build();
                postgres.createSchemaIfMissing();
                store = postgres;
            }
        }
        resources.add(0, store::close);
        return Inbox.builder(store).consumer("adapters-" + UUID.randomUUID()).build();
    }

    private Map<String, Object> kafka(String variant, int consumers) throws Exception {
        int messages = messages(variant);
        String topic = "inbox-adapters-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = KafkaClients.producer(bootstrap)) {
            for (int i = 0; i < messages; i++) {
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, i % 4, null, Integer.toString(i));
                record.headers().add("ce_id", ("m" + i).getBytes(StandardCharsets.UTF_8));
                record.headers().add("ce_source", "/adapters".getBytes(StandardCharsets.UTF_8));
                producer.send(record);
            }
            producer.flush();
        }
        List<AutoCloseable> resources = new ArrayList<>();
        boolean transactional = List.of(TRANSACTIONAL).contains(variant);
        Inbox inbox = transactional ? null : inbox(variant, resources);
        Transactional tx = transactional ? new Transactional(variant, pool(resources)) : null;
        String group = "inbox-adapters-" + UUID.randomUUID();
        LongAdder consumed = new LongAdder();
        if (variant.equals(SPRING_BATCH)) {
            long start = System.nanoTime();
            var listeners = SpringBatchKafka.start(bootstrap, topic, consumers, tx.pool, tx.store, BUSINESS, consumed);
            while (consumed.sum() < messages) {
                Thread.sleep(5);
            }
            long nanos = System.nanoTime() - start;
            listeners.stop();
            for (AutoCloseable resource : resources) {
                resource.close();
            }
            return row("kafka", variant, consumers, nanos);
        }
        AtomicBoolean done = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < consumers; c++) {
            Thread thread = new Thread(() -> {
                if (tx != null) {
                    tx.consume(topic, group, consumed, done);
                } else {
                    consumeKafka(topic, group, inbox, variant.endsWith("-per-poll"), consumed, done);
                }
            });
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        while (consumed.sum() < messages) {
            Thread.sleep(5);
        }
        long nanos = System.nanoTime() - start;
        done.set(true);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        return row("kafka", variant, consumers, nanos);
    }

    private void consumeKafka(
            String topic, String group, Inbox inbox, boolean perPoll, LongAdder consumed, AtomicBoolean done) {
        try (KafkaConsumer<String, String> consumer = KafkaClients.consumer(bootstrap, group, 500)) {
            if (inbox == null) {
                consumer.subscribe(List.of(topic));
                while (!done.get()) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(50));
                    for (ConsumerRecord<String, String> record : records) {
                        work(record.value());
                    }
                    if (!records.isEmpty()) {
                        consumer.commitSync();
                        consumed.add(records.count());
                    }
                }
            } else {
                KafkaInboxLoop.Builder<String, String> builder = KafkaInboxLoop.lease(
                                consumer, inbox, record -> work(record.value()))
                        .keys(RecordKeys.cloudEvents());
                KafkaInboxLoop<String, String> loop = (perPoll ? builder.completePerPoll() : builder).build();
                loop.subscribe(List.of(topic));
                while (!done.get()) {
                    consumed.add(loop.pollOnce(Duration.ofMillis(50)));
                }
            }
        }
    }

    /**
     * The transactional variants: each message inserts a business row; the inbox record (ours, or
     * the hand-written {@code INSERT … ON CONFLICT DO NOTHING}) commits with it, then the offsets.
     */
    private final class Transactional {
        private final String variant;
        private final HikariDataSource pool;
        private final TransactionalInbox inbox;
        private final PostgresInboxStore store;

        Transactional(String variant, HikariDataSource pool) throws SQLException {
            this.variant = variant;
            this.pool = pool;
            this.store =
                    PostgresInboxStore.builder(pool).table("inbox_adapters").build();
            store.createSchemaIfMissing();
            this.inbox = TransactionalInbox.builder(store, pool)
                    .consumer("adapters-" + UUID.randomUUID())
                    .build();
            try (java.sql.Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + BUSINESS + " (id text, value int)");
                s.execute("CREATE TABLE IF NOT EXISTS " + HANDWRITTEN + " (consumer text, id text,"
                        + " PRIMARY KEY (consumer, id))");
            }
        }

        void consume(String topic, String group, LongAdder consumed, AtomicBoolean done) {
            try (KafkaConsumer<String, String> consumer = KafkaClients.consumer(bootstrap, group, 500)) {
                switch (variant) {
                    case "inbox-transactional", "inbox-transactional-batch" -> {
                        TransactionalRecordHandler<String, String> handler =
                                (record, connection) -> business(connection, record);
                        KafkaInboxLoop<String, String> loop = (variant.equals("inbox-transactional")
                                        ? KafkaInboxLoop.transactional(consumer, inbox, handler)
                                        : KafkaInboxLoop.transactionalBatch(consumer, inbox, handler))
                                .keys(RecordKeys.cloudEvents())
                                .build();
                        loop.subscribe(List.of(topic));
                        while (!done.get()) {
                            consumed.add(loop.pollOnce(Duration.ofMillis(50)));
                        }
                    }
                    default ->
                        handwritten(
                                consumer,
                                topic,
                                consumed,
                                done,
                                !variant.equals("handwritten-per-record"),
                                !variant.equals(CEILING));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /**
         * The classic loop: an inbox insert that does nothing on conflict, then the business insert;
         * without {@code dedup}, the business insert alone (the ceiling).
         */
        private void handwritten(
                KafkaConsumer<String, String> consumer,
                String topic,
                LongAdder consumed,
                AtomicBoolean done,
                boolean perPoll,
                boolean dedup)
                throws SQLException {
            consumer.subscribe(List.of(topic));
            String group = consumer.groupMetadata().groupId();
            while (!done.get()) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(50));
                if (records.isEmpty()) {
                    continue;
                }
                try (java.sql.Connection c = pool.getConnection();
                        PreparedStatement claim = c.prepareStatement("INSERT INTO " + HANDWRITTEN
                                + " (consumer, id) VALUES (?, ?) ON CONFLICT DO NOTHING")) {
                    c.setAutoCommit(false);
                    for (ConsumerRecord<String, String> record : records) {
                        if (!dedup) {
                            business(c, record);
                            continue;
                        }
                        claim.setString(1, group);
                        claim.setString(
                                2,
                                new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8));
                        if (claim.executeUpdate() == 1) {
                            business(c, record);
                        }
                        if (!perPoll) {
                            c.commit();
                        }
                    }
                    c.commit();
                    c.setAutoCommit(true);
                }
                consumer.commitSync();
                consumed.add(records.count());
            }
        }

        private void business(java.sql.Connection c, ConsumerRecord<String, String> record) throws SQLException {
            SpringBatchKafka.insert(c, BUSINESS, record);
        }
    }

    private Map<String, Object> rabbit(String variant, int consumers) throws Exception {
        int messages = messages(variant);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(amqpUri);
        String queue = "inbox-adapters-" + UUID.randomUUID();
        List<AutoCloseable> resources = new ArrayList<>();
        try (Connection connection = factory.newConnection("inbox-adapters")) {
            publish(connection, queue, messages);
            Inbox inbox = inbox(variant, resources);
            LongAdder acked = new LongAdder();
            List<Channel> channels = new ArrayList<>();
            List<InboxConsumer> adapters = new ArrayList<>();
            long start = System.nanoTime();
            for (int c = 0; c < consumers; c++) {
                Channel channel = connection.createChannel();
                channel.basicQos(100);
                channels.add(channel);
                if (inbox == null) {
                    channel.basicConsume(queue, false, new DefaultConsumer(channel) {
                        @Override
                        public void handleDelivery(
                                String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                                throws java.io.IOException {
                            work(new String(body, StandardCharsets.UTF_8));
                            getChannel().basicAck(envelope.getDeliveryTag(), false);
                            acked.increment();
                        }
                    });
                } else {
                    InboxConsumer adapter = InboxConsumer.builder(
                                    channel, inbox, d -> work(new String(d.getBody(), StandardCharsets.UTF_8)))
                            .keys(MessageKeys.messageId())
                            .build();
                    adapters.add(adapter);
                    channel.basicConsume(queue, false, adapter);
                }
            }
            while (acked.sum()
                            + adapters.stream()
                                    .mapToLong(a -> a.counts().acknowledged())
                                    .sum()
                    < messages) {
                Thread.sleep(5);
            }
            long nanos = System.nanoTime() - start;
            closeRabbit(connection, queue, channels, resources);
            return row("rabbitmq", variant, consumers, nanos);
        }
    }

    /** Declares {@code queue} and publishes {@code messages} messages to it, ids {@code m0, m1, …}, confirmed. */
    private static void publish(Connection connection, String queue, int messages) throws Exception {
        try (Channel setup = connection.createChannel()) {
            setup.queueDeclare(queue, false, false, false, null);
            setup.confirmSelect();
            for (int i = 0; i < messages; i++) {
                AMQP.BasicProperties props =
                        new AMQP.BasicProperties.Builder().messageId("m" + i).build();
                setup.basicPublish("", queue, props, Integer.toString(i).getBytes(StandardCharsets.UTF_8));
            }
            setup.waitForConfirmsOrDie(60_000);
        }
    }

    /** RabbitMQ into PostgreSQL exactly once: the variants of {@link RabbitTransactional}. */
    private Map<String, Object> rabbitTransactional(String variant, int consumers) throws Exception {
        int messages = messages(variant);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(amqpUri);
        String queue = "inbox-adapters-" + UUID.randomUUID();
        List<AutoCloseable> resources = new ArrayList<>();
        try (Connection connection = factory.newConnection("inbox-adapters")) {
            publish(connection, queue, messages);
            Transactional tx = new Transactional(variant, pool(resources));
            List<Channel> channels = new ArrayList<>();
            List<java.util.function.LongSupplier> acked = new ArrayList<>();
            long start = System.nanoTime();
            for (int c = 0; c < consumers; c++) {
                Channel channel = connection.createChannel();
                channels.add(channel);
                acked.add(RabbitTransactional.subscribe(
                        variant, channel, queue, tx.pool, tx.inbox, BUSINESS, HANDWRITTEN, resources));
            }
            while (acked.stream()
                            .mapToLong(java.util.function.LongSupplier::getAsLong)
                            .sum()
                    < messages) {
                Thread.sleep(5);
            }
            long nanos = System.nanoTime() - start;
            closeRabbit(connection, queue, channels, resources);
            return row("rabbitmq", variant, consumers, nanos);
        }
    }

    /** After a RabbitMQ variant: its channels closed, its queue deleted, its resources closed. */
    private static void closeRabbit(
            Connection connection, String queue, List<Channel> channels, List<AutoCloseable> resources)
            throws Exception {
        for (Channel channel : channels) {
            channel.close();
        }
        try (Channel cleanup = connection.createChannel()) {
            cleanup.queueDelete(queue);
        }
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
