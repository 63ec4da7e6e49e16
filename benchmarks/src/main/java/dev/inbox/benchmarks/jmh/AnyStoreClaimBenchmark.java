package dev.inbox.benchmarks.jmh;

import dev.inbox.benchmarks.custom.CustomStores;
import dev.inbox.caffeine.CaffeineInboxStore;
import java.util.concurrent.TimeUnit;
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
 * The store calls of every claim benchmark ({@link StoreClaimBenchmark}: {@code claim_store},
 * {@code duplicate_store}, {@code contended_store}, {@code claimComplete_store}, {@code
 * claimAll100_store}) on any store: {@code caffeine}, the embedded store — the in-process ceiling
 * no network store reaches — or a store of your own, named by its {@code Supplier<InboxStore>}
 * class ({@link CustomStores}). JMH's {@code -p store=a,b} runs several side by side in one run;
 * name a built-in store's benchmark class beside it to compare with that store and its raw driver:
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar:my-store.jar:my-store-deps/* org.openjdk.jmh.Main \
 *     "AnyStoreClaimBenchmark|PostgresClaimBenchmark" -p store=caffeine,com.example.BenchMyStore -t 1 -rf json -rff my-store.json
 * }</pre>
 *
 * <p>There is no {@code _raw} method here: what a raw baseline means depends on the store. For a
 * store on a server the built-in stores share (PostgreSQL, MySQL, Redis, DynamoDB), their
 * benchmarks' {@code _raw} methods are that baseline.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class AnyStoreClaimBenchmark extends StoreClaimBenchmark {

    /** {@code caffeine}, or the class name of a {@code Supplier<InboxStore>} on the class path. */
    @Param("caffeine")
    public String store = "caffeine";

    @Setup(Level.Trial)
    public void setUp() {
        prepare(CustomStores.isClassName(store) ? CustomStores.create(store) : builtIn(store));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        super.store.close();
    }

    private static dev.inbox.spi.InboxStore builtIn(String name) {
        if (name.equals("caffeine")) {
            return CaffeineInboxStore.builder().build();
        }
        throw new IllegalArgumentException("unknown store '" + name + "': give caffeine, or the class name of a"
                + " Supplier<InboxStore> that builds yours (the other built-in stores have benchmark classes of"
                + " their own: PostgresClaimBenchmark, MysqlClaimBenchmark, RedisClaimBenchmark,"
                + " DynamoDbClaimBenchmark)");
    }
}
