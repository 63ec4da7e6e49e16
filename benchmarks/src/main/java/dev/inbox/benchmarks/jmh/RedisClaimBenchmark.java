package dev.inbox.benchmarks.jmh;

import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.OwnerToken;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Redis: each store operation beside the raw Lettuce command it replaces, {@code SET key value NX
 * PX lease}, on the same kind of key and value, in one run.
 *
 * <ul>
 *   <li>{@code claim_*}: a fresh key — one plain {@code SET NX GET} (the store's new-key claim) vs one
 *       {@code SET NX}.
 *   <li>{@code duplicate_*}: a COMPLETED key vs {@code SET NX} on an existing key.
 *   <li>{@code claimAll100_*}: 100 fresh keys pipelined on one connection; ops/s × 100 = keys/s.
 *   <li>{@code claimComplete_*}: claim + complete (two scripts) vs {@code SET NX PX} + a {@code
 *       SET XX PX} that marks it done.
 *   <li>{@code contended_*}: all threads claim one key (meaningful with {@code -t 4}).
 * </ul>
 *
 * <p>There is no purge benchmark: records expire natively (TTL = expiry + grace), so {@code
 * purge()} sends nothing.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar RedisClaimBenchmark -t 1 -rf json -rff benchmarks/results/redis-claims-t1.json
 * java -jar benchmarks/target/benchmarks.jar RedisClaimBenchmark -t 4 -rf json -rff benchmarks/results/redis-claims-t4.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class RedisClaimBenchmark extends StoreClaimBenchmark {

    static final String URL = System.getProperty("inbox.bench.redis", "redis://127.0.0.1:6379");

    RedisClient client;
    StatefulRedisConnection<byte[], byte[]> raw;
    final SetArgs nxPx = SetArgs.Builder.nx().px(LEASE.toMillis());
    final SetArgs xxPx = SetArgs.Builder.xx().px(RETENTION.toMillis());
    private static final byte[] DONE = "C".getBytes(StandardCharsets.US_ASCII);

    @Setup(Level.Trial)
    public void setUp() {
        client = RedisClient.create(RedisURI.create(URL));
        raw = client.connect(ByteArrayCodec.INSTANCE);
        prepare(RedisInboxStore.builder(client).prefix("inbox-bench").build());
        raw.sync().set(rawKey(DUPLICATE_ID), value(), nxPx);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
        raw.close();
        RedisRunKeys.unlink(client, "inbox-bench*");
        client.shutdown();
    }

    private byte[] rawKey(String id) {
        return ("inbox-bench-raw:{" + consumer + "}:" + id).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value() {
        return ("I 0 " + OwnerToken.random().value()).getBytes(StandardCharsets.US_ASCII);
    }

    @Benchmark
    public String claim_raw() {
        return raw.sync().set(rawKey(freshId()), value(), nxPx);
    }

    @Benchmark
    public String duplicate_raw() {
        return raw.sync().set(rawKey(DUPLICATE_ID), value(), nxPx);
    }

    @Benchmark
    public String contended_raw() {
        return raw.sync().set(rawKey(HOT_ID), value(), nxPx);
    }

    @Benchmark
    public String claimComplete_raw() {
        byte[] key = rawKey(freshId());
        raw.sync().set(key, value(), nxPx);
        return raw.sync().set(key, DONE, xxPx);
    }

    @Benchmark
    public int claimAll100_raw() throws Exception {
        List<RedisFuture<String>> replies = new ArrayList<>(100);
        byte[] value = value();
        for (int i = 0; i < 100; i++) {
            replies.add(raw.async().set(rawKey(freshId()), value, nxPx));
        }
        int taken = 0;
        for (RedisFuture<String> reply : replies) {
            if (reply.get(10, TimeUnit.SECONDS) != null) {
                taken++;
            }
        }
        return taken;
    }
}
