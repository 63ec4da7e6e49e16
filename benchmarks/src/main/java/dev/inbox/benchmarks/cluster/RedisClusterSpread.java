package dev.inbox.benchmarks.cluster;

import dev.inbox.InboxKey;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.redis.RedisKeyLayout;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where one consumer's records and work land on a 3-primary Redis Cluster started from {@code
 * redis-server}: claims N events of the consumer {@code billing} (ids {@code event-1} … {@code
 * event-N}) from 4 threads, one claim each, in each {@link RedisKeyLayout}, on a fresh Cluster
 * each, and prints one JSON object with the keys each primary holds ({@code DBSIZE}) and the CPU
 * time each primary spent meanwhile ({@code INFO cpu}, user + system). Throughput is
 * {@link RedisClusterBenchmark}'s.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar dev.inbox.benchmarks.cluster.RedisClusterSpread 30000 > benchmarks/results/redis-cluster-spread.json
 * }</pre>
 */
public final class RedisClusterSpread {

    private static final Duration LEASE = Duration.ofMinutes(5);

    private RedisClusterSpread() {}

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
        StringJoiner layouts = new StringJoiner(",\n", "{\n  \"events\": " + events + ",\n", "\n}\n");
        for (RedisKeyLayout layout : RedisKeyLayout.values()) {
            List<double[]> primaries = claimOnce(layout, events);
            List<Long> keys = primaries.stream().map(p -> (long) p[0]).toList();
            StringJoiner cpu = new StringJoiner(", ", "[", "]");
            primaries.forEach(p -> cpu.add(String.format(Locale.ROOT, "%.2f", p[1])));
            StringJoiner counts = new StringJoiner(", ", "[", "]");
            keys.forEach(count -> counts.add(Long.toString(count)));
            long most = keys.stream().mapToLong(Long::longValue).max().orElse(0);
            long least = keys.stream().mapToLong(Long::longValue).min().orElse(0);
            double third = events / (double) keys.size();
            layouts.add(String.format(
                    Locale.ROOT,
                    "  \"%s\": {\"keysPerPrimary\": %s, \"cpuSecondsPerPrimary\": %s,"
                            + " \"largestShareOfEven\": %.3f, \"smallestShareOfEven\": %.3f}",
                    layout,
                    counts,
                    cpu,
                    most / third,
                    least / third));
        }
        System.out.print(layouts);
    }

    /** Per primary: the keys it holds and the CPU seconds it spent, after claiming every event once. */
    private static List<double[]> claimOnce(RedisKeyLayout layout, int events) throws Exception {
        try (RedisProcesses cluster = RedisProcesses.start()) {
            RedisClusterClient client = RedisClusterClient.create(cluster.uri());
            try (StatefulRedisClusterConnection<String, String> connection = client.connect();
                    RedisInboxStore store =
                            RedisInboxStore.builder(client).keyLayout(layout).build()) {
                List<RedisClusterNode> primaries = connection.getPartitions().stream()
                        .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                        .toList();
                claim(store, 1); // connects and loads the script before the clock starts
                double[] before = new double[primaries.size()];
                for (int i = 0; i < before.length; i++) {
                    before[i] = cpuSeconds(connection, primaries.get(i));
                }
                AtomicInteger next = new AtomicInteger(1);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    Thread thread = new Thread(() -> {
                        for (int i = next.incrementAndGet(); i <= events; i = next.incrementAndGet()) {
                            claim(store, i);
                        }
                    });
                    thread.start();
                    threads.add(thread);
                }
                for (Thread thread : threads) {
                    thread.join();
                }
                List<double[]> result = new ArrayList<>();
                for (int i = 0; i < before.length; i++) {
                    RedisClusterNode node = primaries.get(i);
                    long keys =
                            connection.getConnection(node.getNodeId()).sync().dbsize();
                    result.add(new double[] {keys, cpuSeconds(connection, node) - before[i]});
                }
                return result;
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static void claim(RedisInboxStore store, int event) {
        if (!store.claim(ClaimRequest.of(InboxKey.of("billing", "event-" + event), OwnerToken.random(), LEASE))
                .isAcquired()) {
            throw new IllegalStateException("event-" + event + " was not acquired on a fresh Cluster");
        }
    }

    private static double cpuSeconds(StatefulRedisClusterConnection<String, String> connection, RedisClusterNode node) {
        String info = connection.getConnection(node.getNodeId()).sync().info("cpu");
        double seconds = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                seconds +=
                        Double.parseDouble(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        return seconds;
    }
}
