package dev.inbox.benchmarks.cluster;

import dev.inbox.InboxKey;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.redis.RedisKeyLayout;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One consumer's claims on a 3-primary Redis Cluster that the benchmark starts from {@code
 * redis-server} (no persistence, free loopback ports), in each {@link RedisKeyLayout}: {@code
 * SPREAD} puts each key in a slot of its own, so the consumer is served by all three primaries;
 * {@code CONSUMER_SLOT} keeps the whole consumer in one slot, so one primary serves it — the
 * "one primary on the same machine" to compare with. Same client, same processes, same keys.
 *
 * <ul>
 *   <li>{@code claim}: a lease claim of a fresh key (run with {@code -t 4} or more: one thread
 *       waits on one primary at a time whatever the layout).
 *   <li>{@code claimAll100}: 100 fresh keys in one {@code claimAll}; ops/s × 100 = keys/s.
 * </ul>
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar RedisClusterBenchmark -t 4 -rf json -rff benchmarks/results/redis-cluster-t4.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class RedisClusterBenchmark {

    private static final Duration LEASE = Duration.ofMinutes(5);

    @Param({"SPREAD", "CONSUMER_SLOT"})
    public RedisKeyLayout layout;

    private RedisProcesses cluster;
    private RedisClusterClient client;
    private RedisInboxStore store;
    private final AtomicLong sequence = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        cluster = RedisProcesses.start();
        client = RedisClusterClient.create(cluster.uri());
        store = RedisInboxStore.builder(client).keyLayout(layout).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        cluster.close();
    }

    private InboxKey fresh() {
        return InboxKey.of("billing", "event-" + sequence.incrementAndGet());
    }

    @Benchmark
    public ClaimResult claim() {
        return store.claim(ClaimRequest.of(fresh(), OwnerToken.random(), LEASE));
    }

    @Benchmark
    public List<ClaimResult> claimAll100() {
        OwnerToken owner = OwnerToken.random();
        List<ClaimRequest> batch = new ArrayList<>(100);
        for (int i = 0; i < 100; i++) {
            batch.add(ClaimRequest.of(fresh(), owner, LEASE));
        }
        return store.claimAll(batch);
    }
}
