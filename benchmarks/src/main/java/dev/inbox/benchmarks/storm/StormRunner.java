package dev.inbox.benchmarks.storm;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxMetrics;
import dev.inbox.benchmarks.custom.CustomStores;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * The project's main job: runs a redelivery storm and checks from a ledger how often each event was
 * applied — exactly once in transactional mode; in lease mode never lost, each extra application
 * charged to a crash after that event's work. With no arguments it runs on the embedded in-memory
 * store:
 *
 * <pre>{@code
 * ./mvnw -q -pl benchmarks -am compile exec:java
 * ./mvnw -q -pl benchmarks -am compile exec:java -Dexec.args="--events 100000 --json"
 * ./mvnw -q -pl benchmarks -am compile exec:java -Dexec.args="--store postgres --mode transactional"
 * }</pre>
 *
 * @see StormConfig#USAGE
 */
public final class StormRunner {

    private StormRunner() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        StormConfig config;
        try {
            config = StormConfig.parse(args);
        } catch (StormConfig.HelpRequested help) {
            out.println(StormConfig.USAGE);
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("storm: " + e.getMessage());
            err.println(StormConfig.USAGE);
            return 2;
        }
        Storm storm = new Storm(config);
        String consumer = "storm-" + UUID.randomUUID();
        List<Runnable> resources = new ArrayList<>();
        try {
            StormTarget target;
            try {
                target = target(config, storm, consumer, resources);
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException | java.sql.SQLException e) {
                err.println("storm: cannot reach the " + config.store() + " store at " + Endpoint.of(config) + ": "
                        + Endpoint.rootCause(e));
                return 3;
            }
            try (StormTarget t = target) {
                StormReport report;
                if (config.broker().isEmpty()) {
                    report = storm.run(t, err::println);
                } else {
                    BrokerDriver broker;
                    try {
                        broker = switch (config.broker()) {
                            case "kafka" -> new KafkaDriver(config, t);
                            case "kafka-share" -> new KafkaShareDriver(config, t);
                            case "rabbitmq" -> new RabbitDriver(config, t);
                            default -> new SqsDriver(config, t);
                        };
                    } catch (Exception e) {
                        err.println("storm: "
                                + (e instanceof IllegalStateException ? e.getMessage() : Endpoint.rootCause(e)));
                        return 3;
                    }
                    try (BrokerDriver b = broker) {
                        report = BrokerStorm.run(config, storm, t, b, err::println);
                    }
                }
                out.println(config.json() ? report.toJson() : report.toText());
                return report.passed() ? 0 : 1;
            }
        } catch (IllegalArgumentException e) {
            err.println("storm: " + e.getMessage());
            return 2;
        } finally {
            resources.forEach(Runnable::run);
        }
    }

    /** Connects to the store and prepares it (schema, table); throws when it cannot be reached. */
    private static StormTarget target(StormConfig config, Storm storm, String consumer, List<Runnable> resources)
            throws java.sql.SQLException {
        StormTarget target;
        {
            switch (config.store()) {
                case "caffeine" -> {
                    if (config.transactional()) {
                        throw new IllegalArgumentException("the caffeine store has no transactional mode");
                    }
                    CaffeineInboxStore store = caffeine(config);
                    target = new LeaseTarget("caffeine", store, consumer, config, storm.metrics(), store::size);
                }
                case "postgres" -> {
                    HikariDataSource pool = pool(config.jdbcUrl(), "3", config, resources);
                    PostgresInboxStore store = PostgresInboxStore.builder(pool)
                            .grace(config.grace())
                            .build();
                    store.createSchemaIfMissing();
                    target = sqlTarget("postgres", store, store.tableName(), pool, consumer, config, storm.metrics());
                }
                case "mysql" -> {
                    boolean defaultUrl = config.jdbcUrl().equals(StormConfig.DEFAULT_JDBC_URL);
                    HikariDataSource pool = pool(
                            defaultUrl ? StormConfig.DEFAULT_MYSQL_URL : config.jdbcUrl(), "3000", config, resources);
                    MysqlInboxStore store =
                            MysqlInboxStore.builder(pool).grace(config.grace()).build();
                    store.createSchemaIfMissing();
                    target = sqlTarget("mysql", store, store.tableName(), pool, consumer, config, storm.metrics());
                }
                case "redis", "redis-cluster" -> {
                    if (config.transactional()) {
                        throw new IllegalArgumentException("Redis has no transactional mode");
                    }
                    RedisInboxStore store = config.store().equals("redis")
                            ? RedisInboxStore.builder(RedisURI.create(config.redisUrl()))
                                    .grace(config.grace())
                                    .build()
                            : clusterStore(config, resources);
                    LongSupplier records = config.store().equals("redis")
                            ? redisRecords(config.redisUrl(), consumer, resources)
                            : () -> -1;
                    target = new LeaseTarget(config.store(), store, consumer, config, storm.metrics(), records);
                }
                case "dynamodb" -> {
                    if (config.transactional()) {
                        throw new IllegalArgumentException("DynamoDB has no transactional mode");
                    }
                    target = new LeaseTarget(
                            "dynamodb", dynamoDbStore(config, resources), consumer, config, storm.metrics());
                }
                default -> {
                    if (!CustomStores.isClassName(config.store())) {
                        throw new IllegalArgumentException("unknown store '" + config.store()
                                + "'; this build has: caffeine, postgres, mysql, redis, redis-cluster, dynamodb,"
                                + " or give the class name of a Supplier<InboxStore> that builds yours");
                    }
                    if (config.transactional()) {
                        throw new IllegalArgumentException("a store of your own runs in lease mode: the storm's"
                                + " transactional modes are the SQL stores' (they write the ledger in the claim's"
                                + " transaction)");
                    }
                    target = new LeaseTarget(
                            config.store(), CustomStores.create(config.store()), consumer, config, storm.metrics());
                }
            }
        }
        return target;
    }

    /** A store on --dynamodb-url (or AWS's defaults), with its table created; clients closed after the run. */
    private static DynamoDbInboxStore dynamoDbStore(StormConfig config, List<Runnable> resources) {
        DynamoDbClientBuilder sync = DynamoDbClient.builder();
        DynamoDbAsyncClientBuilder async = DynamoDbAsyncClient.builder();
        if (!config.dynamodbUrl().isEmpty()) {
            URI endpoint = URI.create(config.dynamodbUrl());
            StaticCredentialsProvider credentials =
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("storm", "storm"));
            sync.endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(credentials);
            async.endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(credentials);
        }
        DynamoDbClient client = sync.build();
        resources.add(client::close);
        DynamoDbAsyncClient asyncClient = async.build();
        resources.add(asyncClient::close);
        DynamoDbInboxStore store = DynamoDbInboxStore.builder(client)
                .asyncClient(asyncClient)
                .table("inbox_storm")
                .grace(config.grace())
                .build();
        store.createTableIfMissing();
        return store;
    }

    /**
     * Counts the run's records on a standalone Redis with SCAN over the store's key pattern in its
     * default layout ({@code inbox:<consumer as hex>:*}, {@link dev.inbox.redis.RedisKeyLayout#SPREAD}), on a
     * connection of its own.
     */
    private static LongSupplier redisRecords(String url, String consumer, List<Runnable> resources) {
        RedisClient client = RedisClient.create(url);
        resources.add(client::shutdown);
        StatefulRedisConnection<String, String> connection = client.connect();
        resources.add(0, connection::close);
        ScanArgs pattern = ScanArgs.Builder.matches(
                        "inbox:" + HexFormat.of().formatHex(consumer.getBytes(StandardCharsets.UTF_8)) + ":*")
                .limit(10_000);
        return () -> {
            long count = 0;
            KeyScanCursor<String> cursor = connection.sync().scan(pattern);
            count += cursor.getKeys().size();
            while (!cursor.isFinished()) {
                cursor = connection.sync().scan(cursor, pattern);
                count += cursor.getKeys().size();
            }
            return count;
        };
    }

    /** A store on the cluster at --redis-url; the client is shut down after the run. */
    private static RedisInboxStore clusterStore(StormConfig config, List<Runnable> resources) {
        RedisClusterClient client = RedisClusterClient.create(config.redisUrl());
        resources.add(client::shutdown);
        return RedisInboxStore.builder(client).grace(config.grace()).build();
    }

    private static CaffeineInboxStore caffeine(StormConfig config) {
        // Grace (an hour by default) far longer than the run: no record may vanish while
        // redeliveries still come.
        return CaffeineInboxStore.builder()
                .maximumSize(Math.max(1_000_000L, config.events() * 2L))
                .grace(config.grace())
                .build();
    }

    private static StormTarget sqlTarget(
            String name,
            TransactionalInboxStore store,
            String table,
            HikariDataSource pool,
            String consumer,
            StormConfig config,
            InboxMetrics metrics)
            throws java.sql.SQLException {
        return config.transactional()
                ? new TransactionalTarget(name, store, table, pool, consumer, config, metrics)
                : new LeaseTarget(
                        name, store, consumer, config, metrics, () -> SqlRecords.count(pool, table, consumer));
    }

    /**
     * A pool on {@code jdbcUrl}, closed after the run; {@code connectTimeout} (in the driver's unit)
     * bounds each connection attempt unless the URL sets its own, so an unreachable server is
     * reported within seconds.
     */
    private static HikariDataSource pool(
            String jdbcUrl, String connectTimeout, StormConfig config, List<Runnable> resources) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        if (!jdbcUrl.contains("connectTimeout=")) {
            hikari.addDataSourceProperty("connectTimeout", connectTimeout);
        }
        hikari.setMaximumPoolSize(config.consumers() + 2);
        hikari.setPoolName("storm");
        HikariDataSource pool = new HikariDataSource(hikari);
        resources.add(0, pool::close);
        return pool;
    }
}
