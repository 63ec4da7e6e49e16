package dev.inbox.benchmarks.storm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The storm's settings, parsed from {@code --name value} arguments. Every setting has a default,
 * so a run with no arguments is a complete, meaningful storm on the embedded store.
 */
record StormConfig(
        String store,
        String mode,
        String jdbcUrl,
        String redisUrl,
        String dynamodbUrl,
        int events,
        int partitions,
        int consumers,
        int maxRedeliveries,
        Duration maxRedeliveryDelay,
        double failRate,
        double crashBeforeWorkRate,
        double crashAfterWorkRate,
        Duration lease,
        Duration retention,
        Duration grace,
        int eventRate,
        Duration purgeInterval,
        Duration heapInterval,
        long seed,
        boolean json,
        String broker,
        String kafkaBootstrap,
        String amqpUri,
        String sqsEndpoint) {

    /** {@code --mode transactional-batch}: one transaction per poll, receive or window of deliveries. */
    static final String TRANSACTIONAL_BATCH = "transactional-batch";

    /** {@code --mode lease-batch}: lease mode, each poll's claims completed together (Kafka). */
    static final String LEASE_BATCH = "lease-batch";

    static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    static final String DEFAULT_MYSQL_URL =
            "jdbc:mysql://127.0.0.1:3306/test?user=root&password=&sslMode=DISABLED&allowPublicKeyRetrieval=true";

    static final String DEFAULT_AMQP_URI = "amqp://guest:guest@127.0.0.1:5672";

    static final String USAGE = String.join(
            "\n",
            "usage: storm [--store caffeine|postgres|mysql|redis|redis-cluster|dynamodb|CLASS] [--redis-url URL] [--dynamodb-url URL] [--mode lease|lease-batch|transactional|transactional-batch] [--jdbc-url URL]",
            "             [--events N] [--partitions N] [--consumers N]",
            "             [--max-redeliveries N] [--max-redelivery-delay-ms N] [--fail-rate R]",
            "             [--crash-before-work-rate R] [--crash-after-work-rate R]",
            "             [--lease-ms N] [--retention-ms N] [--grace-ms N] [--seed N] [--json]",
            "             [--event-rate N] [--purge-every-ms N] [--heap-every-ms N]",
            "             [--broker kafka|kafka-share|rabbitmq|sqs|sqs-fifo] [--kafka-bootstrap HOST:PORT] [--amqp-uri URI]",
            "             [--sqs-endpoint URL]",
            "",
            "Simulates a consumer fleet: each event is delivered 1 + d times (d drawn from 0..max-redeliveries),",
            "redeliveries concurrent with the first delivery, out of order and after delays, to concurrent",
            "consumers; work throws at fail-rate; a consumer crashes after claiming (before or after the work)",
            "at the crash rates, so its lease must expire. Exit code 0 when every event was applied exactly",
            "once (in lease mode, an event may be applied once more per crash after its work, failed completion",
            "or lost lease of that same event: the lease-mode window); 1 when an effect was lost or applied again",
            "without such a cause of its own; 2 on a usage error; 3 when the store cannot be",
            "reached at the start (the endpoint is named; connections time out after a few seconds).",
            "The producer's re-sends and every fault come from --seed (default 42): the n-th attempt at an event",
            "draws the same fault in every run with that seed, whatever the threads' timing.",
            "",
            "--store postgres uses --jdbc-url (default " + DEFAULT_JDBC_URL + ");",
            "--store mysql uses --jdbc-url (default " + DEFAULT_MYSQL_URL + ");",
            "--store redis uses --redis-url (default redis://127.0.0.1:6379); --store redis-cluster needs",
            "--redis-url naming one node of the cluster; --store dynamodb uses --dynamodb-url (for example",
            "a local dynalite), or the AWS default region and credentials when it is not given.",
            "--store CLASS (a dotted class name on the class path) runs a store of your own in lease mode: a",
            "public java.util.function.Supplier<InboxStore> with a public no-argument constructor whose get()",
            "returns it ready; --grace-ms does not reach it (its supplier configures it).",
            "--mode transactional writes the ledger in the claim's transaction (SQL stores), where no crash",
            "may double an effect.",
            "--mode transactional-batch (with a --broker) applies each poll, receive or window of deliveries in one",
            "transaction: KafkaInboxLoop.transactionalBatch, SqsInboxLoop.transactionalBatch, InboxConsumer.window.",
            "--mode lease-batch (with --broker kafka) completes each poll's claims together (KafkaInboxLoop's",
            "completePerPoll): a crash completes none of its poll, so every record the poll applied before the",
            "crash may be applied once more, and each such extra application is charged to that crash.",
            "",
            "For a soak: --event-rate N releases N events per second (0, the default, releases all at once),",
            "so deliveries are generated as the run goes and memory stays flat; --purge-every-ms N purges",
            "expired records while the storm runs (use a short --retention-ms and --grace-ms so there are",
            "some); --heap-every-ms N samples the heap after a full GC and the store's record count.",
            "",
            "--broker kafka|kafka-share|rabbitmq|sqs|sqs-fifo sends the storm through a real broker and the inbox adapter: the producer",
            "publishes each event 1 + d times (re-sends under the event's own id, as a retrying producer does),",
            "--consumers members consume through KafkaInboxLoop, InboxConsumer or SqsInboxLoop, a crash kills a",
            "member mid-work (no commit, no ack, no delete) and a new one joins, and one extra member joins and",
            "leaves mid-run. Kafka uses --kafka-bootstrap, or starts a single-node broker of its own (needs",
            "kafka_2.13 on the class path, as this build has); RabbitMQ uses --amqp-uri (default",
            DEFAULT_AMQP_URI + "); SQS uses --sqs-endpoint, or starts an ElasticMQ of its own (on the class",
            "path of this build); sqs-fifo uses a FIFO queue with --partitions message groups; kafka-share",
            "consumes through a share group with KafkaShareInboxLoop (every member on every partition).");

    /** Transactional mode, one transaction per record or per poll: the ledger row commits with the claim. */
    boolean transactional() {
        return mode.equals("transactional") || mode.equals(TRANSACTIONAL_BATCH);
    }

    static StormConfig defaults() {
        return new StormConfig(
                "caffeine",
                "lease",
                DEFAULT_JDBC_URL,
                "redis://127.0.0.1:6379",
                "",
                20_000,
                8,
                8,
                3,
                Duration.ofMillis(200),
                0.02,
                0.01,
                0.0,
                Duration.ofMillis(250),
                Duration.ofHours(1),
                Duration.ofHours(1),
                0,
                Duration.ZERO,
                Duration.ZERO,
                42L,
                false,
                "",
                "",
                DEFAULT_AMQP_URI,
                "");
    }

    /** {@code --help}: the usage goes to standard output and the exit code is 0. */
    static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super("help requested", null, false, false);
        }
    }

    static StormConfig parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        boolean json = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--json")) {
                json = true;
            } else if (arg.equals("--help") || arg.equals("-h")) {
                throw new HelpRequested();
            } else if (arg.startsWith("--") && i + 1 < args.length) {
                values.put(arg.substring(2), args[++i]);
            } else {
                throw new IllegalArgumentException("unexpected argument: " + arg);
            }
        }
        StormConfig d = defaults();
        List<String> known = new ArrayList<>(List.of(
                "store",
                "mode",
                "jdbc-url",
                "redis-url",
                "dynamodb-url",
                "events",
                "partitions",
                "consumers",
                "max-redeliveries",
                "max-redelivery-delay-ms",
                "fail-rate",
                "crash-before-work-rate",
                "crash-after-work-rate",
                "lease-ms",
                "retention-ms",
                "grace-ms",
                "event-rate",
                "purge-every-ms",
                "heap-every-ms",
                "seed",
                "broker",
                "kafka-bootstrap",
                "amqp-uri",
                "sqs-endpoint"));
        for (String name : values.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        StormConfig c = new StormConfig(
                values.getOrDefault("store", d.store()),
                values.getOrDefault("mode", d.mode()),
                values.getOrDefault("jdbc-url", d.jdbcUrl()),
                values.getOrDefault("redis-url", d.redisUrl()),
                values.getOrDefault("dynamodb-url", d.dynamodbUrl()),
                positive(values, "events", d.events()),
                positive(values, "partitions", d.partitions()),
                positive(values, "consumers", d.consumers()),
                (int) number(values, "max-redeliveries", d.maxRedeliveries(), 0, 1_000),
                Duration.ofMillis(number(
                        values,
                        "max-redelivery-delay-ms",
                        d.maxRedeliveryDelay().toMillis(),
                        0,
                        600_000)),
                rate(values, "fail-rate", d.failRate()),
                rate(values, "crash-before-work-rate", d.crashBeforeWorkRate()),
                rate(values, "crash-after-work-rate", d.crashAfterWorkRate()),
                Duration.ofMillis(number(values, "lease-ms", d.lease().toMillis(), 1, 3_600_000)),
                Duration.ofMillis(number(values, "retention-ms", d.retention().toMillis(), 1, Long.MAX_VALUE / 2)),
                Duration.ofMillis(number(values, "grace-ms", d.grace().toMillis(), 0, Long.MAX_VALUE / 2)),
                (int) number(values, "event-rate", d.eventRate(), 0, 10_000_000),
                Duration.ofMillis(number(values, "purge-every-ms", 0, 0, 3_600_000)),
                Duration.ofMillis(number(values, "heap-every-ms", 0, 0, 3_600_000)),
                number(values, "seed", d.seed(), Long.MIN_VALUE, Long.MAX_VALUE),
                json,
                values.getOrDefault("broker", d.broker()),
                values.getOrDefault("kafka-bootstrap", d.kafkaBootstrap()),
                values.getOrDefault("amqp-uri", d.amqpUri()),
                values.getOrDefault("sqs-endpoint", d.sqsEndpoint()));
        if (!List.of("lease", LEASE_BATCH, "transactional", TRANSACTIONAL_BATCH).contains(c.mode())) {
            throw new IllegalArgumentException(
                    "--mode is lease, lease-batch, transactional or transactional-batch, not " + c.mode());
        }
        if (c.mode().equals(LEASE_BATCH) && !c.broker().equals("kafka")) {
            throw new IllegalArgumentException("--mode lease-batch needs --broker kafka: it is KafkaInboxLoop's"
                    + " completePerPoll (the SQS loop completes each receive together in plain lease mode)");
        }
        if (c.mode().equals(TRANSACTIONAL_BATCH) && c.broker().equals("kafka-share")) {
            throw new IllegalArgumentException("--mode transactional-batch is not there for --broker kafka-share:"
                    + " KafkaShareInboxLoop has no batch form yet");
        }
        if (c.mode().equals(TRANSACTIONAL_BATCH) && c.broker().isEmpty()) {
            throw new IllegalArgumentException("--mode transactional-batch needs a --broker: its adapter applies a"
                    + " poll, a receive or a window of deliveries in one transaction");
        }
        if (!c.broker().isEmpty()
                && !List.of("kafka", "kafka-share", "rabbitmq", "sqs", "sqs-fifo")
                        .contains(c.broker())) {
            throw new IllegalArgumentException(
                    "--broker is kafka, kafka-share, rabbitmq, sqs or sqs-fifo, not " + c.broker());
        }
        if (!c.broker().isEmpty() && (c.eventRate() != 0 || !c.heapInterval().isZero())) {
            throw new IllegalArgumentException(
                    "--event-rate and --heap-every-ms are for simulated storms, not --broker");
        }
        if (c.failRate() + c.crashBeforeWorkRate() + c.crashAfterWorkRate() >= 1) {
            throw new IllegalArgumentException("the fail and crash rates must add up to less than 1");
        }
        return c;
    }

    private static int positive(Map<String, String> values, String name, int fallback) {
        return (int) number(values, name, fallback, 1, 100_000_000);
    }

    private static long number(Map<String, String> values, String name, long fallback, long min, long max) {
        String text = values.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            long value = Long.parseLong(text);
            if (value < min || value > max) {
                throw new IllegalArgumentException("--" + name + " must be between " + min + " and " + max);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a whole number, not " + text);
        }
    }

    private static double rate(Map<String, String> values, String name, double fallback) {
        String text = values.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            double value = Double.parseDouble(text);
            if (!(value >= 0 && value < 1)) {
                throw new IllegalArgumentException("--" + name + " must be in [0, 1)");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a number in [0, 1), not " + text);
        }
    }
}
