package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.HandleResult;
import dev.inbox.Inbox;
import dev.inbox.ItemResult;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
 * A poll of 500 new events, handled with one {@code Inbox.handleAll} ({@code poll500_batch}: one
 * {@code claimAll} and one {@code completeAll}) against 500 {@code Inbox.handle} calls ({@code
 * poll500_single}: a claim and a completion each), on the same store in the same run. The work
 * does nothing, so the figures are the inbox's own cost; ops/s × 500 = events/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput})
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
public class HandleAllBenchmark {

    static final int POLL = 500;

    @Param({"postgres", "redis"})
    public String store;

    private InboxStore backend;
    private Inbox inbox;
    private HikariDataSource pool;
    private RedisClient client;
    private final AtomicLong sequence = new AtomicLong();
    private final String run = UUID.randomUUID().toString();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (store.equals("postgres")) {
            pool = PostgresBench.pool(4);
            PostgresBench.recreate(pool);
            backend = PostgresBench.store(pool);
        } else {
            client = RedisClient.create(RedisURI.create(RedisClaimBenchmark.URL));
            backend = RedisInboxStore.builder(client).prefix("inbox-bench").build();
        }
        inbox = Inbox.builder(backend)
                .consumer("bench-" + run)
                .lease(Duration.ofMinutes(5))
                .retention(Duration.ofHours(1))
                .build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        backend.close();
        if (pool != null) {
            pool.close();
        }
        if (client != null) {
            client.shutdown();
        }
    }

    private List<String> poll() {
        List<String> ids = new ArrayList<>(POLL);
        for (int i = 0; i < POLL; i++) {
            ids.add("e-" + sequence.incrementAndGet());
        }
        return ids;
    }

    @Benchmark
    public List<ItemResult<String>> poll500_batch() {
        return inbox.handleAll(poll(), id -> id, id -> {});
    }

    @Benchmark
    public HandleResult poll500_single() {
        HandleResult last = null;
        for (String id : poll()) {
            last = inbox.handle(id, () -> {});
        }
        return last;
    }
}
