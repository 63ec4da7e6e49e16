package dev.inbox.benchmarks.jmh;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.jspecify.annotations.Nullable;
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
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.integration.redis.metadata.RedisMetadataStore;

/**
 * The stores beside the libraries users would pick instead, on the same servers in one run: the
 * check a consumer makes before applying an event, for a new event ({@code *Claim_*}) and for one
 * already applied ({@code *Duplicate_*}).
 *
 * <ul>
 *   <li>{@code inbox}: {@link PostgresInboxStore#claim} (one {@code INSERT … ON CONFLICT DO NOTHING}
 *       that reads back the conflicting row) and {@link RedisInboxStore#claim} (a plain {@code SET NX GET}
 *       while most keys are new, the claim script after it on a conflict and first while duplicates are common).
 *   <li>{@code camel}: Apache Camel's {@code JdbcMessageIdRepository.add} — in a Spring transaction,
 *       {@code SELECT COUNT(*)}, then {@code INSERT} when absent: begin, one or two statements,
 *       commit.
 *   <li>{@code springIntegration}: Spring Integration's {@code JdbcMetadataStore.putIfAbsent} — an
 *       {@code INSERT … SELECT … HAVING COUNT(*) = 0 ON CONFLICT DO NOTHING}, then a {@code SELECT}
 *       of the value when it inserted nothing — and {@code RedisMetadataStore.putIfAbsent} ({@code
 *       HSETNX} on one hash, then {@code HGET} when it was there), through Spring Data Redis on
 *       Lettuce.
 * </ul>
 *
 * <p>The peers only mark a key as seen: no lease, no owner, no expiry, no takeover. The inbox does
 * more per call, which is why it must not cost more. PostgreSQL runs with {@code
 * synchronous_commit=off} for every contender, as in the other JMH runs.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar PeerClaimBenchmark -t 1 -rf json -rff benchmarks/results/peers-t1.json
 * java -jar benchmarks/target/benchmarks.jar PeerClaimBenchmark -t 4 -rf json -rff benchmarks/results/peers-t4.json
 * }</pre>
 */
@BenchmarkMode({Mode.Throughput})
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(1)
@State(Scope.Benchmark)
public class PeerClaimBenchmark {

    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final String DONE = "already-done";

    private final AtomicLong sequence = new AtomicLong();
    private final String run = "peer-" + UUID.randomUUID();

    private HikariDataSource pool;
    private PostgresInboxStore postgres;
    private JdbcMessageIdRepository camel;
    private JdbcMetadataStore springJdbc;
    private RedisClient redisClient;
    private RedisInboxStore redis;
    private LettuceConnectionFactory redisFactory;
    private RedisMetadataStore springRedis;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        pool = PostgresBench.pool(8);
        PostgresBench.recreate(pool);
        postgres = PostgresBench.store(pool);
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS camel_bench, int_metadata_store");
            // Spring Integration's schema-postgresql.sql, as its documentation asks users to create it
            s.execute("CREATE TABLE INT_METADATA_STORE (METADATA_KEY VARCHAR(255) NOT NULL,"
                    + " METADATA_VALUE VARCHAR(4000), REGION VARCHAR(100) NOT NULL,"
                    + " constraint INT_METADATA_STORE_PK primary key (METADATA_KEY, REGION))");
        }
        camel = new JdbcMessageIdRepository(pool, run);
        camel.setTableName("camel_bench"); // created by the repository on start, with its own DDL
        camel.start();
        springJdbc = new JdbcMetadataStore(pool);
        springJdbc.setRegion(run);
        springJdbc.afterPropertiesSet();
        springJdbc.start();

        redisClient = RedisClient.create(RedisURI.create(RedisClaimBenchmark.URL));
        redis = RedisInboxStore.builder(redisClient).prefix("inbox-peer").build();
        RedisURI uri = RedisURI.create(RedisClaimBenchmark.URL);
        redisFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        redisFactory.afterPropertiesSet();
        redisFactory.start();
        springRedis = new RedisMetadataStore(redisFactory, run);

        // one applied event for the duplicate benchmarks, in each contender
        OwnerToken owner = OwnerToken.random();
        postgres.claim(ClaimRequest.of(InboxKey.of(run, DONE), owner, LEASE));
        postgres.complete(InboxKey.of(run, DONE), owner, LEASE);
        redis.claim(ClaimRequest.of(InboxKey.of(run, DONE), owner, LEASE));
        redis.complete(InboxKey.of(run, DONE), owner, LEASE);
        camel.add(DONE);
        springJdbc.putIfAbsent(DONE, "1");
        springRedis.putIfAbsent(DONE, "1");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        camel.stop();
        springJdbc.stop();
        redis.close();
        RedisRunKeys.unlink(redisClient, "inbox-peer:*");
        RedisRunKeys.unlink(redisClient, run); // Spring Integration's hash
        redisClient.shutdown();
        redisFactory.destroy();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS camel_bench, int_metadata_store");
        }
        pool.close();
    }

    private String fresh() {
        return "k-" + sequence.incrementAndGet();
    }

    private ClaimResult claim(dev.inbox.spi.InboxStore store, String id) {
        return store.claim(ClaimRequest.of(InboxKey.of(run, id), OwnerToken.random(), LEASE));
    }

    @Benchmark
    public ClaimResult pgClaim_inbox() {
        return claim(postgres, fresh());
    }

    @Benchmark
    public boolean pgClaim_camel() {
        return camel.add(fresh());
    }

    @Benchmark
    public @Nullable String pgClaim_springIntegration() {
        return springJdbc.putIfAbsent(fresh(), "1");
    }

    @Benchmark
    public ClaimResult pgDuplicate_inbox() {
        return claim(postgres, DONE);
    }

    @Benchmark
    public boolean pgDuplicate_camel() {
        return camel.add(DONE);
    }

    @Benchmark
    public @Nullable String pgDuplicate_springIntegration() {
        return springJdbc.putIfAbsent(DONE, "1");
    }

    @Benchmark
    public ClaimResult redisClaim_inbox() {
        return claim(redis, fresh());
    }

    @Benchmark
    public @Nullable String redisClaim_springIntegration() {
        return springRedis.putIfAbsent(fresh(), "1");
    }

    @Benchmark
    public ClaimResult redisDuplicate_inbox() {
        return claim(redis, DONE);
    }

    @Benchmark
    public @Nullable String redisDuplicate_springIntegration() {
        return springRedis.putIfAbsent(DONE, "1");
    }
}
