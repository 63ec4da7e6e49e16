package dev.inbox.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) in a JVM of its
 * own, on free loopback ports, in a temporary directory — started from {@code kafka.Kafka} on the
 * test class path, so the test's build needs {@code org.apache.kafka:kafka_2.13} in test scope —
 * or from the class path in the file {@code INBOX_TEST_KAFKA_BROKER_CLASSPATH} (or {@code
 * -Dinbox.test.kafka.broker-classpath}) names, for tests whose own class path holds another
 * kafka-clients than the broker's (an application on Spring Boot's managed versions).
 * Ready in a few seconds; {@link #crash()} kills it ({@code SIGKILL}) and {@link #restart()}
 * starts it again on the same files and ports, offsets and all.
 *
 * <p>{@link #bootstrap()} is what most tests want: the broker named by {@code
 * INBOX_TEST_KAFKA_BOOTSTRAP} (or {@code -Dinbox.test.kafka.bootstrap}) when set — it must answer —
 * else one broker this JVM starts once and stops when it exits.
 *
 * <p>Rebalances are quick: {@code group.initial.rebalance.delay.ms=0}, and the consumer-protocol
 * and share-group heartbeats are 500 ms.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final String MAIN = "kafka.Kafka";
    private static final String BROKER_CLASSPATH_PROPERTY = "inbox.test.kafka.broker-classpath";
    private static final String BROKER_CLASSPATH_VARIABLE = "INBOX_TEST_KAFKA_BROKER_CLASSPATH";
    private static final long START_TIMEOUT_MS = 90_000;
    private static @Nullable String shared;

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private @Nullable Process process;

    /**
     * The settings of a String consumer in {@code group} on {@link #bootstrap()}, as the tests use
     * them: the consumer group protocol, auto-commit off, from the earliest offset. A map of
     * kafka-clients' setting names, so that this module needs no kafka-clients of its own; add or
     * override what a test needs.
     */
    public static Map<String, Object> consumerConfig(String group) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap());
        config.put("group.id", group);
        config.put("group.protocol", "consumer");
        config.put("enable.auto.commit", "false");
        config.put("auto.offset.reset", "earliest");
        config.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        config.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        return config;
    }

    /**
     * The settings of a String share consumer in share group {@code group} on {@link #bootstrap()},
     * acknowledging each record explicitly ({@code share.acknowledgement.mode=explicit}), at most 50
     * records a poll.
     */
    public static Map<String, Object> shareConsumerConfig(String group) {
        Map<String, Object> config = consumerConfig(group);
        // The classic consumer's settings a share consumer refuses.
        config.remove("group.protocol");
        config.remove("enable.auto.commit");
        config.remove("auto.offset.reset");
        config.put("share.acknowledgement.mode", "explicit");
        config.put("max.poll.records", "50");
        return config;
    }

    /**
     * The group settings of a test's share group, to set ({@code incrementalAlterConfigs} on the
     * group) before its first member joins: from the earliest offset, acquisition locks of {@code
     * lockMillis}, a record archived at its {@code deliveryLimit}th delivery, lock renewals
     * ({@code RENEW}) enabled or not.
     */
    public static Map<String, String> shareGroupSettings(long lockMillis, int deliveryLimit, boolean renewals) {
        return Map.of(
                "share.auto.offset.reset", "earliest",
                "share.record.lock.duration.ms", Long.toString(lockMillis),
                "share.delivery.count.limit", Integer.toString(deliveryLimit),
                "share.renew.acknowledge.enable", Boolean.toString(renewals));
    }

    /** The settings of a String producer on {@link #bootstrap()} that sends each record at once. */
    public static Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap());
        config.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("linger.ms", "0");
        return config;
    }

    private KafkaBroker() throws IOException {
        this.dir = Files.createTempDirectory("inbox-kafka");
        int[] ports = Processes.freePorts(2);
        this.port = ports[0];
        this.controllerPort = ports[1];
    }

    /**
     * The bootstrap servers of the broker the tests share: {@code INBOX_TEST_KAFKA_BOOTSTRAP} when
     * set, else a broker started once per JVM.
     *
     * @throws NoTestServerException if the named broker does not answer or none could be started
     */
    public static synchronized String bootstrap() {
        if (shared != null) {
            return shared;
        }
        String named = Settings.get("inbox.test.kafka.bootstrap", "INBOX_TEST_KAFKA_BOOTSTRAP");
        if (named != null) {
            try {
                probe(named.split(",")[0].trim());
            } catch (IOException e) {
                throw new NoTestServerException(
                        "INBOX_TEST_KAFKA_BOOTSTRAP=" + named + " does not answer as a Kafka broker: " + e, e);
            }
            shared = named;
            return named;
        }
        try {
            KafkaBroker broker = start();
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "inbox-kafka-stop"));
            shared = broker.bootstrapServers();
            return shared;
        } catch (IOException | RuntimeException e) {
            throw new NoTestServerException(
                    "no Kafka broker: set INBOX_TEST_KAFKA_BOOTSTRAP to one, or let the tests start one (" + e + ")",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NoTestServerException("interrupted while starting Kafka", e);
        }
    }

    /**
     * Starts a broker of the caller's own (to crash and restart) and waits until it answers.
     *
     * @throws IllegalStateException if {@code kafka.Kafka} is not on the class path, or the broker
     *     did not answer within 90 s (its log is in the message)
     */
    public static KafkaBroker start() throws IOException, InterruptedException {
        if (brokerClassPathFile() == null) {
            try {
                Class.forName(MAIN, false, KafkaBroker.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(MAIN + " is not on the test class path: add org.apache.kafka:kafka_2.13"
                        + " (test scope), name a file holding the broker's class path in "
                        + BROKER_CLASSPATH_VARIABLE + ", or point INBOX_TEST_KAFKA_BOOTSTRAP at a broker");
            }
        }
        KafkaBroker broker = new KafkaBroker();
        try {
            broker.writeConfig();
            Processes.run(
                    java("kafka.tools.StorageTool", "format", "-t", clusterId(), "-c", broker.config(), "--standalone"),
                    60);
            broker.launch();
            return broker;
        } catch (IOException | InterruptedException | RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** {@code 127.0.0.1:<port>}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Kills the broker at once ({@code SIGKILL}): no clean shutdown, as a crash would. */
    public void crash() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
            try {
                running.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    /** Starts the broker again on its files and ports and waits until it answers. */
    public void restart() throws IOException, InterruptedException {
        crash();
        launch();
    }

    /** Stops the broker and deletes its files. */
    @Override
    public void close() {
        Process running = process;
        if (running != null) {
            Processes.stop(running);
            process = null;
        }
        Processes.deleteTree(dir);
    }

    private void launch() throws IOException, InterruptedException {
        Path log = dir.resolve("broker.log");
        List<String> command = java(MAIN, config());
        command.add(1, "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties"));
        command.add(1, "-Xmx512m");
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (true) {
            try {
                probe(bootstrapServers());
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                    String output = Files.exists(log) ? Files.readString(log) : "";
                    throw new IllegalStateException("the Kafka broker did not answer on " + bootstrapServers()
                            + (process.isAlive() ? " within " + START_TIMEOUT_MS + " ms" : " (it exited)")
                            + "; its log:\n"
                            + output.substring(Math.max(0, output.length() - 4000)));
                }
                Thread.sleep(200);
            }
        }
    }

    private String config() {
        return dir.resolve("server.properties").toString();
    }

    private void writeConfig() throws IOException {
        Files.writeString(
                dir.resolve("server.properties"),
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.bootstrap.servers=127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "controller.listener.names=CONTROLLER",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "inter.broker.listener.name=PLAINTEXT",
                        "log.dirs=" + dir.resolve("data"),
                        "num.partitions=1",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "share.coordinator.state.topic.replication.factor=1",
                        "share.coordinator.state.topic.min.isr=1",
                        // Share groups' acquisition locks as short as a test's lease (the floor is 15 s by default).
                        "group.share.min.record.lock.duration.ms=1000",
                        "group.initial.rebalance.delay.ms=0",
                        "group.consumer.heartbeat.interval.ms=500",
                        "group.consumer.min.heartbeat.interval.ms=500",
                        // A share-group member gets its assignment on a heartbeat: 5 s apart by default.
                        "group.share.heartbeat.interval.ms=500",
                        "group.share.min.heartbeat.interval.ms=500",
                        // A group may notice a member killed without leaving sooner than the 45-s default
                        // (the share storm sets its group's share.session.timeout.ms); the default stays.
                        "group.share.min.session.timeout.ms=5000",
                        "broker.session.timeout.ms=2000",
                        "broker.heartbeat.interval.ms=500",
                        "auto.create.topics.enable=true",
                        ""));
        Files.writeString(
                dir.resolve("log4j2.properties"),
                String.join(
                        "\n",
                        "appender.out.type=Console",
                        "appender.out.name=out",
                        "appender.out.layout.type=PatternLayout",
                        "appender.out.layout.pattern=[%d] %p %m (%c)%n",
                        "rootLogger.level=WARN",
                        "rootLogger.appenderRef.out.ref=out",
                        ""));
    }

    private static List<String> java(String main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(classPath());
        command.add(main);
        command.addAll(List.of(args));
        return command;
    }

    private static @Nullable String brokerClassPathFile() {
        return Settings.get(BROKER_CLASSPATH_PROPERTY, BROKER_CLASSPATH_VARIABLE);
    }

    /**
     * The class path {@code kafka.Kafka} was found on: the JVM's, and before it the entries of the
     * URL class loaders this class was loaded through (as {@code exec:java} and other in-process
     * launchers load the application, leaving {@code java.class.path} to the launcher).
     */
    private static String classPath() {
        String file = brokerClassPathFile();
        if (file != null) {
            try {
                return Files.readString(Path.of(file)).strip();
            } catch (IOException e) {
                throw new IllegalStateException(
                        BROKER_CLASSPATH_VARIABLE + " names " + file
                                + ", which cannot be read (build the module that writes it first): " + e,
                        e);
            }
        }
        List<String> entries = new ArrayList<>();
        for (ClassLoader loader = KafkaBroker.class.getClassLoader(); loader != null; loader = loader.getParent()) {
            if (loader instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    if ("file".equals(url.getProtocol())) {
                        try {
                            entries.add(Path.of(url.toURI()).toString());
                        } catch (URISyntaxException ignored) {
                            // not a path
                        }
                    }
                }
            }
        }
        entries.add(System.getProperty("java.class.path"));
        return String.join(File.pathSeparator, entries);
    }

    /**
     * A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, never starting with
     * {@code -} — the storage tool would read such an id as an option and fail (one run in 64), which
     * is why Kafka's own {@code Uuid.randomUuid()} draws again too.
     */
    static String clusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    /** Sends an ApiVersions request (v0) to {@code hostPort} and expects the answer to it. */
    static void probe(String hostPort) throws IOException {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        byte[] client = "inbox-probe".getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(2_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(2 + 2 + 4 + 2 + client.length);
            out.writeShort(18); // ApiVersions
            out.writeShort(0);
            out.writeInt(4242); // correlation id
            out.writeShort(client.length);
            out.write(client);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            int correlation = in.readInt();
            short error = in.readShort();
            if (size < 6 || correlation != 4242 || error != 0) {
                throw new IOException("not a ready Kafka broker (size " + size + ", correlation " + correlation
                        + ", error " + error + ")");
            }
        }
    }
}
