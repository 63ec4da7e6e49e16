package dev.inbox.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Redis servers the tests start themselves from the local {@code redis-server}, on free loopback
 * ports: a 3-master Redis Cluster ({@link #start()}, about 2–3 s, no persistence) or one standalone
 * server ({@link #standalone(boolean)}) that a test may pause, crash and restart, with or without
 * an append-only file synced on every write. {@link #close()} stops the processes and deletes
 * their files; start-up is bounded. Only {@code redis-server} and {@code redis-cli} are needed:
 * no Redis client library.
 */
public final class RedisProcesses implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 30_000;

    private final @Nullable Path dir; // null for a server the tests were given
    private final boolean durable;
    private final @Nullable String givenUri;
    private final List<Process> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    private RedisProcesses(@Nullable Path dir, boolean durable, @Nullable String givenUri) {
        this.dir = dir;
        this.durable = durable;
        this.givenUri = givenUri;
    }

    private static void requireBinaries() {
        if (!Processes.onPath("redis-server") || !Processes.onPath("redis-cli")) {
            throw new NoTestServerException(
                    "This test starts Redis servers of its own: redis-server and redis-cli are not on the"
                            + " PATH. Install Redis (Debian: apt-get install redis-server), or for a"
                            + " Cluster set INBOX_TEST_REDIS_CLUSTER_URL=redis://host:7000.",
                    null);
        }
    }

    /**
     * The Redis Cluster a test uses: {@code INBOX_TEST_REDIS_CLUSTER_URL} when set (a seed node's
     * {@code redis://} URI; closing the result then stops nothing), else a 3-primary Cluster
     * started here from {@code redis-server}.
     */
    public static RedisProcesses clusterForTests() throws IOException, InterruptedException {
        String configured = Settings.get("inbox.test.redis.cluster.url", "INBOX_TEST_REDIS_CLUSTER_URL");
        if (configured != null) {
            return new RedisProcesses(null, false, configured);
        }
        return start();
    }

    /** A 3-primary Redis Cluster, no persistence, on free loopback ports (about 2–3 s). */
    public static RedisProcesses start() throws IOException, InterruptedException {
        requireBinaries();
        RedisProcesses cluster = new RedisProcesses(Files.createTempDirectory("inbox-redis-cluster"), false, null);
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
    public static RedisProcesses standalone(boolean durable) throws IOException, InterruptedException {
        requireBinaries();
        RedisProcesses server = new RedisProcesses(Files.createTempDirectory("inbox-redis-server"), durable, null);
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
        Processes.signal(servers.get(0), signal);
    }

    /** The {@code redis://} URI of the first server (the seed node of a Cluster). */
    public String uri() {
        return givenUri != null ? givenUri : "redis://127.0.0.1:" + ports.get(0);
    }

    /** The port of the first server (the seed node of a Cluster). */
    public int port() {
        return ports.get(0);
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
        Path nodeDir = Files.createDirectories(Objects.requireNonNull(dir).resolve("node-" + port));
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

    @Override
    public void close() {
        for (Process server : servers) {
            try {
                Processes.signal(server, "-CONT");
            } catch (IOException | InterruptedException | RuntimeException ignored) {
                // it was not paused, or is gone already
            }
            server.destroy();
        }
        servers.forEach(Processes::stop);
        if (dir != null) {
            Processes.deleteTree(dir);
        }
    }
}
