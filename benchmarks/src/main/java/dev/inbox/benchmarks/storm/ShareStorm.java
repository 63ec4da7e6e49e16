package dev.inbox.benchmarks.storm;

import dev.inbox.benchmarks.brokers.KafkaClients;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The share-group storm with members as processes: {@code --events} events published to a topic of
 * four partitions (a share of them twice, under the same CloudEvents id), consumed by {@code
 * --members} {@link ShareStormMember} JVMs in one share group (locks of 2 s, the brokers' delivery
 * limit of 5) into a PostgreSQL ledger; {@code --kills} times, at even steps of the ledger's
 * progress, the longest-running member (once it has applied an event) is killed with {@code
 * SIGKILL} mid-work and a new one started. When
 * every event is in the ledger and the group has acknowledged every record, the ledger is read
 * back: in {@code transactional} mode each event has one row; in {@code lease} mode an event may
 * have more, each earlier one written by a member that was then killed; in both, no event is
 * missing (none archived unapplied).
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.storm.ShareStorm \
 *     [--mode transactional|lease] [--events 5000] [--members 4] [--kills 12] \
 *     [--duplicate-rate 0.1] [--work-ms 10] [--lease-ms 2000] [--jdbc-url URL] \
 *     [--bootstrap HOST:PORT] > result.json
 * }</pre>
 *
 * Without {@code --bootstrap} it starts a single-node broker of its own ({@link KafkaBroker}). The
 * exit code is 1 when the checks failed.
 */
public final class ShareStorm {

    static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    private static final int PARTITIONS = 4;
    private static final long LOCK_MS = 2000;

    private final Map<String, String> args;
    private final boolean transactional;
    private final int events;
    private final int members;
    private final int kills;
    private final double duplicateRate;
    private final String jdbcUrl;
    private final String run = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String table = "share_storm_" + run;
    private final String topic = "share-storm-" + run;
    private final String group = "share-storm-" + run;
    private final List<Member> running = new ArrayList<>();
    private int incarnation;
    private long published;

    /** A member process and the number it writes into the ledger. */
    private record Member(int incarnation, MemberJvm jvm) {}

    private ShareStorm(Map<String, String> args) {
        this.args = args;
        this.transactional = StormArgs.transactional(args.getOrDefault("mode", "transactional"));
        this.events = StormArgs.number(args, "events", 5000, 1);
        this.members = StormArgs.number(args, "members", 4, 1);
        this.kills = StormArgs.number(args, "kills", 12, 0);
        this.duplicateRate = Double.parseDouble(args.getOrDefault("duplicate-rate", "0.1"));
        if (!(duplicateRate >= 0 && duplicateRate <= 1)) {
            throw new IllegalArgumentException("--duplicate-rate must be between 0 and 1");
        }
        StormArgs.number(args, "work-ms", 10, 0);
        StormArgs.number(args, "lease-ms", 2000, 1);
        this.jdbcUrl = args.getOrDefault("jdbc-url", DEFAULT_JDBC_URL);
    }

    public static void main(String[] argv) throws Exception {
        StormArgs.print(run(argv));
    }

    /** Runs the storm with {@code argv}'s options; the result as {@link #main} prints it. */
    public static Map<String, Object> run(String... argv) throws Exception {
        return new ShareStorm(StormArgs.parse(argv)).storm();
    }

    private Map<String, Object> storm() throws Exception {
        String given = args.get("bootstrap");
        KafkaBroker broker = given == null ? KafkaBroker.start() : null;
        String bootstrap = broker != null ? broker.bootstrapServers() : given;
        Path log = Files.createTempFile("inbox-share-storm-" + run, ".log");
        try (Admin admin =
                Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            prepare(admin, bootstrap);
            long started = System.nanoTime();
            for (int m = 0; m < members; m++) {
                startMember(bootstrap, log);
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            for (int k = 1; k <= kills; k++) {
                long step = (long) events * k / (kills + 1);
                while (applied() < step) {
                    checkTime(deadline, log, "the ledger to reach " + step + " events");
                    Thread.sleep(20);
                }
                // The longest-running member, once it has applied something: at work, not starting.
                Member victim = running.get(0);
                while (!hasApplied(victim.incarnation())) {
                    checkTime(deadline, log, "member " + victim.incarnation() + " to apply an event");
                    Thread.sleep(20);
                }
                Thread.sleep(ThreadLocalRandom.current().nextInt(StormArgs.number(args, "work-ms", 10, 0) + 1));
                victim.jvm().kill();
                running.remove(0);
                progress(started, "killed member " + victim.incarnation() + " (kill " + k + ")");
                startMember(bootstrap, log);
            }
            while (applied() < events && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            progress(started, applied() < events ? "gave up waiting for every event" : "every event applied");
            boolean drained = drained(admin);
            while (!drained && System.nanoTime() < deadline) {
                Thread.sleep(100);
                drained = drained(admin);
            }
            progress(started, drained ? "every record acknowledged" : "gave up waiting for the acknowledgements");
            double seconds = (System.nanoTime() - started) / 1e9;
            for (Member member : running) {
                member.jvm().kill(); // the group has acknowledged everything: nothing is in a member's hand
            }
            running.clear();
            return check(seconds);
        } finally {
            for (Member member : running) {
                member.jvm().kill();
            }
            try (Connection connection = DriverManager.getConnection(jdbcUrl);
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
            if (broker != null) {
                broker.close();
            }
            Files.deleteIfExists(log);
        }
    }

    /** A line of progress on standard error (the result goes to standard output). */
    private static void progress(long started, String what) {
        System.err.printf("%6.1f s  %s%n", (System.nanoTime() - started) / 1e9, what);
    }

    private static void checkTime(long deadline, Path log, String what) throws Exception {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                    "waited 10 minutes for " + what + "; the members' output:\n" + Files.readString(log));
        }
    }

    /** The topic, the group's settings, the ledger, the inbox's table and the published records. */
    private void prepare(Admin admin, String bootstrap) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                .all()
                .get(60, TimeUnit.SECONDS);
        // A member killed without leaving the group keeps its share of the partitions' assignment
        // until its session times out (45 s by default): records still flow to the others, but
        // fewer. Sessions of 8 s (the broker's group.share.min.session.timeout.ms must allow it).
        KafkaClients.configureShareGroup(bootstrap, group, LOCK_MS, Map.of("share.session.timeout.ms", "8000"));
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table
                    + " (id BIGSERIAL PRIMARY KEY, event INT NOT NULL, incarnation INT NOT NULL)");
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        PostgresInboxStore.builder(dataSource).build().createSchemaIfMissing();
        try (KafkaProducer<String, String> producer = KafkaClients.producer(bootstrap)) {
            for (int event = 0; event < events; event++) {
                send(producer, event);
                if (ThreadLocalRandom.current().nextDouble() < duplicateRate) {
                    send(producer, event); // the same event again, as a producer's retry would
                }
            }
            producer.flush();
        }
    }

    private void send(KafkaProducer<String, String> producer, int event) {
        ProducerRecord<String, String> record =
                new ProducerRecord<>(topic, event % PARTITIONS, null, Integer.toString(event));
        record.headers().add("ce_id", ("e" + event).getBytes(StandardCharsets.UTF_8));
        record.headers().add("ce_source", "/share-storm".getBytes(StandardCharsets.UTF_8));
        producer.send(record);
        published++;
    }

    private void startMember(String bootstrap, Path log) throws Exception {
        incarnation++;
        running.add(new Member(
                incarnation,
                MemberJvm.start(
                        ShareStormMember.class,
                        log,
                        List.of(
                                "--bootstrap",
                                bootstrap,
                                "--topic",
                                topic,
                                "--group",
                                group,
                                "--table",
                                table,
                                "--consumer",
                                "share-storm-" + run,
                                "--incarnation",
                                Integer.toString(incarnation),
                                "--mode",
                                transactional ? "transactional" : "lease",
                                "--work-ms",
                                args.getOrDefault("work-ms", "10"),
                                "--lease-ms",
                                args.getOrDefault("lease-ms", "2000"),
                                "--jdbc-url",
                                jdbcUrl))));
    }

    /** Whether member {@code incarnation} has written a ledger row. */
    private boolean hasApplied(int incarnation) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT 1 FROM " + table + " WHERE incarnation = " + incarnation + " LIMIT 1")) {
            return rows.next();
        }
    }

    /** Distinct events in the ledger. */
    private long applied() throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(DISTINCT event) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private boolean drained(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                admin.listOffsets(latest).all().get(15, TimeUnit.SECONDS);
        return KafkaClients.shareGroupDrained(admin, group, ends);
    }

    private Map<String, Object> check(double seconds) throws SQLException {
        Map<Integer, List<Integer>> ledger = new HashMap<>(); // event -> incarnations, by row id
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT event, incarnation FROM " + table + " ORDER BY id")) {
            while (rows.next()) {
                ledger.computeIfAbsent(rows.getInt(1), e -> new ArrayList<>()).add(rows.getInt(2));
            }
        }
        LedgerCheck check = new LedgerCheck(incarnation - members + 1); // the members still running
        for (int event = 0; event < events; event++) {
            check.add("event " + event, ledger.getOrDefault(event, List.of()));
        }
        long stray = ledger.keySet().stream().filter(e -> e < 0 || e >= events).count();
        boolean passed = stray == 0 && check.passed(transactional);
        Map<String, Object> out = StormArgs.header("ShareStorm", args);
        out.put("store", "postgres (" + (transactional ? "transactional" : "lease") + " mode)");
        out.put("broker", "kafka-share (KafkaShareInboxLoop, members as processes, locks of " + LOCK_MS + " ms)");
        out.put("events", events);
        out.put("recordsPublished", published);
        out.put("members", members);
        out.put("kills", kills);
        out.put("membersStarted", incarnation);
        check.into(out);
        out.put("examples", check.examples());
        out.put("seconds", Math.round(seconds * 10) / 10.0);
        out.put("passed", passed);
        out.put("verdict", verdict(passed, check.extraApplications()));
        return out;
    }

    private String verdict(boolean passed, long extra) {
        if (!passed) {
            return "FAILED: see the counts and examples";
        }
        String through = ", through " + kills + " members SIGKILLed mid-work";
        if (transactional) {
            return "EXACTLY-ONCE: every event applied once, none lost" + through;
        }
        return "AT-LEAST-ONCE: " + extra + " extra application(s), each by a member killed before it completed"
                + " the claim; none lost" + through;
    }
}
