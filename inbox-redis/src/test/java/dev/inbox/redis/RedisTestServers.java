package dev.inbox.redis;

import dev.inbox.tck.TestEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Redis servers the tests start themselves from the local {@code redis-server}, on free loopback
 * ports: a 3-master Redis Cluster ({@link #start()}, about 2–3 s, no persistence) or one standalone
 * server ({@link #standalone(boolean)}) that a test may pause, crash and restart, with or without
 * an append-only file synced on every write. {@link #close()} stops the processes and deletes
 * their files; start-up is bounded.
 */
public final class RedisTestServers implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 30_000;

    private final Path dir;
    private final boolean durable;
    private final List<Process> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    private RedisTestServers(Path dir, boolean durable) {
        this.dir = dir;
        this.durable = durable;
    }

    /**
     * The standalone server most tests share, not started by them: {@code INBOX_TEST_REDIS_URL}
     * when set, else redis://127.0.0.1:6379; see {@link TestEndpoint} for what happens when it
     * does not answer.
     */
    public static String sharedUrl() {
        return TestEndpoint.resolve(
                "Redis", "INBOX_TEST_REDIS_URL", "redis://127.0.0.1:6379", "redis://host:6379", uri -> {
                    RedisClient probe = RedisClient.create(RedisURI.create(uri));
                    try {
                        probe.connect().close();
                    } finally {
                        probe.shutdown(Duration.ZERO, Duration.ofSeconds(1));
                    }
                });
    }

    /** A store with a client of its own on {@code host:port}, whose commands time out after {@code timeout}. */
    public static RedisInboxStore storeAt(String host, int port, Duration timeout) {
        return RedisInboxStore.builder(RedisURI.builder()
                        .withHost(host)
                        .withPort(port)
                        .withTimeout(timeout)
                        .build())
                .build();
    }

    /** A store on the first server, with a client of its own whose commands time out after {@code timeout}. */
    public RedisInboxStore store(Duration timeout) {
        return storeAt("127.0.0.1", ports.get(0), timeout);
    }

    /** True when {@code redis-server} and {@code redis-cli} are on the PATH. */
    public static boolean available() {
        return onPath("redis-server") && onPath("redis-cli");
    }

    public static RedisTestServers start() throws IOException, InterruptedException {
        RedisTestServers cluster = new RedisTestServers(Files.createTempDirectory("inbox-redis-cluster"), false);
        try {
            cluster.launch();
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * One standalone server; {@code durable} turns on {@code appendonly yes} with {@code
     * appendfsync always}, so every acknowledged write is on disk before the reply.
     */
    public static RedisTestServers standalone(boolean durable) throws IOException, InterruptedException {
        RedisTestServers server = new RedisTestServers(Files.createTempDirectory("inbox-redis-server"), durable);
        try {
            server.ports.add(freePort());
            server.restart();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Freezes the first server (SIGSTOP): it takes connections and commands but answers nothing. */
    public void pause() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** Kills the first server at once (SIGKILL): nothing is flushed, as in a power cut. */
    public void crash() throws IOException, InterruptedException {
        signal("-KILL");
        if (!servers.get(0).waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server did not die");
        }
    }

    /** Starts the standalone server (again) on its port, with its directory and settings. */
    public void restart() throws IOException, InterruptedException {
        int port = ports.get(0);
        if (servers.isEmpty()) {
            servers.add(startNode(port, false));
        } else {
            servers.set(0, startNode(port, false));
        }
        waitFor(System.currentTimeMillis() + START_TIMEOUT_MS, "PONG", "-p", Integer.toString(port), "ping");
    }

    /** Lets the first server run again (SIGCONT); it then executes what it received meanwhile. */
    public void resume() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill =
                new ProcessBuilder("kill", signal, Long.toString(servers.get(0).pid())).start();
        if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " failed");
        }
    }

    /** The seed node, as {@code host:port}. */
    public String seed() {
        return "127.0.0.1:" + ports.get(0);
    }

    private void launch() throws IOException, InterruptedException {
        for (int i = 0; i < 3; i++) {
            int port = freePort();
            ports.add(port);
            servers.add(startNode(port, true));
        }
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        for (int port : ports) {
            waitFor(deadline, "PONG", "-p", Integer.toString(port), "ping");
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (int port : ports) {
            create.add("127.0.0.1:" + port);
        }
        create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        run(deadline, create);
        for (int port : ports) {
            waitFor(deadline, "cluster_state:ok", "-p", Integer.toString(port), "cluster", "info");
        }
    }

    private Process startNode(int port, boolean clustered) throws IOException {
        Path nodeDir = Files.createDirectories(dir.resolve("node-" + port));
        return new ProcessBuilder(
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        clustered ? "yes" : "no",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--dir",
                        nodeDir.toString(),
                        "--save",
                        "",
                        "--appendonly",
                        durable ? "yes" : "no",
                        "--appendfsync",
                        "always",
                        "--daemonize",
                        "no",
                        "--logfile",
                        nodeDir.resolve("redis.log").toString())
                .redirectErrorStream(true)
                .redirectOutput(nodeDir.resolve("stdout.log").toFile())
                .start();
    }

    private static void waitFor(long deadline, String expected, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli"));
        command.addAll(List.of(args));
        while (true) {
            String out = run(deadline, command);
            if (out.contains(expected)) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(
                        "redis cluster not ready: " + String.join(" ", command) + " said " + out);
            }
            Thread.sleep(100);
        }
    }

    private static String run(long deadline, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        long left = Math.max(1, deadline - System.currentTimeMillis());
        if (!process.waitFor(left, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out: " + String.join(" ", command));
        }
        return new String(process.getInputStream().readAllBytes());
    }

    private static int freePort() throws IOException {
        // The cluster bus listens on port + 10000: pick a port whose bus port is free too.
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (port + 10_000 < 65_536) {
                    try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                        return port;
                    } catch (IOException taken) {
                        // try another
                    }
                }
            }
        }
        throw new IOException("no free port pair for a Redis Cluster node");
    }

    private static boolean onPath(String binary) {
        String path = System.getenv("PATH");
        return path != null
                && Stream.of(path.split(File.pathSeparator)).anyMatch(p -> Files.isExecutable(Path.of(p, binary)));
    }

    @Override
    public void close() {
        for (Process server : servers) {
            try {
                new ProcessBuilder("kill", "-CONT", Long.toString(server.pid()))
                        .start()
                        .waitFor(5, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException ignored) {
                // it was not paused, or is gone already
            }
            server.destroy();
        }
        for (Process server : servers) {
            try {
                if (!server.waitFor(5, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp directory
        }
    }
}
