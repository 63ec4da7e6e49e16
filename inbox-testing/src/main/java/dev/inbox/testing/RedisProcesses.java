package dev.inbox.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Redis servers the tests start themselves from the local {@code redis-server}, on free loopback
 * ports: a 3-master Redis Cluster ({@link #start()}, about 2–3 s, no persistence), the same with a
 * replica per primary ({@link #replicatedCluster()}) whose nodes a test may pause, crash and fail
 * over, or one standalone server ({@link #standalone(boolean)}) that a test may pause, crash and
 * restart, with or without an append-only file synced on every write. {@link #close()} stops the processes and deletes
 * their files; start-up is bounded. Only {@code redis-server} and {@code redis-cli} are needed:
 * no Redis client library.
 */
public final class RedisProcesses implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 30_000;
    private static final int START_ATTEMPTS = 3;
    /** A Cluster node also listens on its port + 10000 (the cluster bus). */
    private static final int BUS_OFFSET = 10_000;

    private final @Nullable Path dir; // null for a server the tests were given
    private final boolean durable;
    private final @Nullable String givenUri;
    private final List<Process> servers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final Set<Integer> paused = new HashSet<>();
    private boolean clustered;

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
        return cluster(0);
    }

    /**
     * A 3-primary Redis Cluster with one replica per primary (6 processes), no persistence, every
     * replica's link to its primary up. Nodes are addressed by port: {@link #primaryOfSlot(int)},
     * {@link #replicaOf(int)}, {@link #pause(int)}, {@link #crash(int)}, {@link #cli(int,
     * String...)} (for {@code CLUSTER FAILOVER TAKEOVER}).
     */
    public static RedisProcesses replicatedCluster() throws IOException, InterruptedException {
        return cluster(1);
    }

    private static RedisProcesses cluster(int replicas) throws IOException, InterruptedException {
        return started("inbox-redis-cluster", false, servers -> servers.launch(replicas));
    }

    /**
     * One standalone server; {@code durable} turns on {@code appendonly yes} with {@code
     * appendfsync always}, so every acknowledged write is on disk before the reply.
     */
    public static RedisProcesses standalone(boolean durable) throws IOException, InterruptedException {
        return standalone(durable, Processes::freePort);
    }

    /** {@link #standalone(boolean)} on the ports {@code ports} gives, one per attempt. */
    static RedisProcesses standalone(boolean durable, PortSource ports) throws IOException, InterruptedException {
        return started("inbox-redis-server", durable, server -> {
            server.ports.add(ports.next());
            server.restart();
        });
    }

    interface PortSource {
        int next() throws IOException;
    }

    private interface Launch {
        void run(RedisProcesses servers) throws IOException, InterruptedException;
    }

    /**
     * Starts servers in a new temporary directory. A free port can be taken between choosing and
     * binding it (by another process, or as the bus port of a node starting beside): a node that
     * cannot bind exits, and the servers are started again on other ports, a bounded number of times.
     */
    private static RedisProcesses started(String dirPrefix, boolean durable, Launch launch)
            throws IOException, InterruptedException {
        requireBinaries();
        for (int attempt = 1; ; attempt++) {
            RedisProcesses servers = new RedisProcesses(Files.createTempDirectory(dirPrefix), durable, null);
            try {
                launch.run(servers);
                return servers;
            } catch (NodeExitedException e) {
                servers.close();
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                servers.close();
                throw e;
            }
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
        awaitPong(port, System.currentTimeMillis() + START_TIMEOUT_MS);
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

    /** The ports of every node this started, primaries and replicas, in start order. */
    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    private void launch(int replicas) throws IOException, InterruptedException {
        clustered = true;
        ports.addAll(clusterPorts(3 * (1 + replicas)));
        for (int port : ports) {
            servers.add(startNode(port, true));
        }
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        for (int port : ports) {
            awaitPong(port, deadline);
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (int port : ports) {
            create.add("127.0.0.1:" + port);
        }
        create.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
        run(deadline, create);
        for (int port : ports) {
            waitFor(deadline, "cluster_state:ok", "-p", Integer.toString(port), "cluster", "info");
        }
        for (int port : ports) {
            String role = run(deadline, List.of("redis-cli", "-p", Integer.toString(port), "role"));
            if (role.startsWith("slave")) {
                waitFor(deadline, "master_link_status:up", "-p", Integer.toString(port), "info", "replication");
            }
        }
        // A replica is announced by gossip: until every node has heard of each, a node asked which
        // replica serves a primary (replicaOf) may not know one.
        for (int port : ports) {
            awaitReplicasKnown(port, 3 * replicas, deadline);
        }
    }

    private static void awaitReplicasKnown(int port, int replicas, long deadline)
            throws IOException, InterruptedException {
        List<String> nodes = List.of("redis-cli", "-p", Integer.toString(port), "cluster", "nodes");
        while (true) {
            String out = run(deadline, nodes);
            if (out.lines().filter(line -> line.contains("slave")).count() == replicas) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("redis cluster not ready: node " + port + " knows of other than "
                        + replicas + " replicas:\n" + out);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Runs {@code redis-cli -p port args…} and returns its output, within 10 s.
     *
     * @throws IllegalStateException if it timed out
     */
    public String cli(int port, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(System.currentTimeMillis() + 10_000, command);
    }

    /** The port of the primary serving {@code slot}, from {@code CLUSTER NODES} of a live node. */
    public int primaryOfSlot(int slot) throws IOException, InterruptedException {
        for (String[] node : clusterNodes()) {
            if (node[2].contains("master") && !node[2].contains("fail")) {
                for (int i = 8; i < node.length; i++) {
                    String[] range = node[i].split("-");
                    int from = Integer.parseInt(range[0]);
                    int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                    if (slot >= from && slot <= to) {
                        return portOf(node[1]);
                    }
                }
            }
        }
        throw new IllegalStateException("no live primary serves slot " + slot);
    }

    /** The port of the replica of the primary on {@code primaryPort}. */
    public int replicaOf(int primaryPort) throws IOException, InterruptedException {
        String primaryId = null;
        List<String[]> nodes = clusterNodes();
        for (String[] node : nodes) {
            if (portOf(node[1]) == primaryPort) {
                primaryId = node[0];
            }
        }
        for (String[] node : nodes) {
            if (node[3].equals(primaryId)) {
                return portOf(node[1]);
            }
        }
        throw new IllegalStateException("the primary on port " + primaryPort + " has no replica");
    }

    private List<String[]> clusterNodes() throws IOException, InterruptedException {
        for (int port : ports) {
            if (!servers.get(ports.indexOf(port)).isAlive() || paused.contains(port)) {
                continue;
            }
            String out = cli(port, "cluster", "nodes");
            if (out.contains("master")) {
                List<String[]> nodes = new ArrayList<>();
                for (String line : out.strip().split("\n")) {
                    nodes.add(line.strip().split(" "));
                }
                return nodes;
            }
        }
        throw new IllegalStateException("no node answered CLUSTER NODES");
    }

    private static int portOf(String address) {
        // ip:port@busport
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1, address.indexOf('@')));
    }

    /** Freezes the node on {@code port} (SIGSTOP). */
    public void pause(int port) throws IOException, InterruptedException {
        Processes.signal(node(port), "-STOP");
        paused.add(port);
    }

    /** Lets the node on {@code port} run again (SIGCONT). */
    public void resume(int port) throws IOException, InterruptedException {
        Processes.signal(node(port), "-CONT");
        paused.remove(port);
    }

    /**
     * Starts the node on {@code port} again, after {@link #crash(int)}, with its directory (a Cluster
     * node keeps its {@code nodes.conf}: a primary that was failed over rejoins as a replica of the
     * node that took over), and waits until it answers.
     */
    public void restart(int port) throws IOException, InterruptedException {
        int i = ports.indexOf(port);
        if (i < 0) {
            throw new IllegalArgumentException("no node of ours on port " + port);
        }
        servers.set(i, startNode(port, clustered));
        awaitPong(port, System.currentTimeMillis() + START_TIMEOUT_MS);
    }

    /** Kills the node on {@code port} at once (SIGKILL). */
    public void crash(int port) throws IOException, InterruptedException {
        Process server = node(port);
        Processes.signal(server, "-KILL");
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " did not die");
        }
    }

    private Process node(int port) {
        int i = ports.indexOf(port);
        if (i < 0) {
            throw new IllegalArgumentException("no node of ours on port " + port);
        }
        return servers.get(i);
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

    /**
     * Waits until the node on {@code port} answers {@code PING}; fails at once with the end of its
     * log when the process has exited (it could not bind its port, say).
     */
    private void awaitPong(int port, long deadline) throws IOException, InterruptedException {
        Process server = node(port);
        List<String> ping = List.of("redis-cli", "-p", Integer.toString(port), "ping");
        String out = "";
        while (System.currentTimeMillis() < deadline) {
            if (!server.isAlive()) {
                throw new NodeExitedException(port, logTail(port));
            }
            try {
                out = run(Math.min(deadline, System.currentTimeMillis() + 2_000), ping);
            } catch (IllegalStateException slow) {
                out = slow.getMessage(); // a node still starting on a loaded machine: ask again
            }
            if (out.contains("PONG")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                + START_TIMEOUT_MS / 1000 + " s; last answer: " + out.strip() + "; its log ends: " + logTail(port));
    }

    private String logTail(int port) {
        try {
            List<String> lines = Files.readAllLines(
                    Objects.requireNonNull(dir).resolve("node-" + port).resolve("redis.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no log: " + e + ")";
        }
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

    /**
     * {@code count} free loopback ports for Cluster nodes, each with a free bus port, and no port
     * of one node the bus port of another.
     */
    static List<Integer> clusterPorts(int count) throws IOException {
        List<Integer> chosen = new ArrayList<>();
        Set<Integer> used = new HashSet<>();
        for (int attempt = 0; chosen.size() < count; attempt++) {
            if (attempt == 50 * count) {
                throw new IOException("no " + count + " free port pairs for Redis Cluster nodes");
            }
            int port = Processes.freePort();
            if (port + BUS_OFFSET >= 65_536 || used.contains(port) || used.contains(port + BUS_OFFSET)) {
                continue;
            }
            try (ServerSocket bus = new ServerSocket(port + BUS_OFFSET, 1, InetAddress.getLoopbackAddress())) {
                chosen.add(port);
                used.add(port);
                used.add(port + BUS_OFFSET);
            } catch (IOException taken) {
                // try another
            }
        }
        return chosen;
    }

    /** A node that exited while starting, most likely because its port was taken meanwhile. */
    private static final class NodeExitedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NodeExitedException(int port, String log) {
            super("redis-server on port " + port + " exited while starting; its log ends: " + log);
        }
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
