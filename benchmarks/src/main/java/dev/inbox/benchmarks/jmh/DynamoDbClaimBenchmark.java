package dev.inbox.benchmarks.jmh;

import dev.inbox.InboxKey;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * DynamoDB on dynalite, an emulator: absolute numbers say little, ratios and request counts say
 * more. Each store operation beside the raw conditional {@code PutItem} ({@code
 * attribute_not_exists(pk)}) in one run; {@code sequential100_store} claims 100 keys one by one,
 * to compare with {@code claimAll100_store}'s parallel puts. {@code duplicate_*} and {@code
 * contended_*} (all threads on one key; use {@code -t 4}) hit an existing item, where the raw put
 * fails its condition; {@code claimComplete_*} adds the owner-fenced {@code UpdateItem}. There is
 * no purge benchmark: DynamoDB's TTL deletes expired items, and {@code purge()} sends nothing.
 *
 * <p>The benchmark starts dynalite itself from {@code inbox-dynamodb/src/test/dynalite} (run
 * {@code npm ci} there first), or uses {@code -Dinbox.bench.dynamodb=http://host:port}.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar DynamoDbClaimBenchmark -t 1 -rf json -rff benchmarks/results/dynamodb-claims-t1.json
 * }</pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 4)
@Fork(1)
@State(Scope.Benchmark)
public class DynamoDbClaimBenchmark extends StoreClaimBenchmark {

    private static final String TABLE = "inbox_bench";

    Process dynalite;
    DynamoDbClient client;
    DynamoDbAsyncClient async;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        String endpoint = System.getProperty("inbox.bench.dynamodb");
        if (endpoint == null) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            dynalite = new ProcessBuilder(
                            "node",
                            "inbox-dynamodb/src/test/dynalite/node_modules/dynalite/cli.js",
                            "--host",
                            "127.0.0.1",
                            "--port",
                            Integer.toString(port),
                            "--createTableMs",
                            "0")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectErrorStream(true)
                    .start();
            endpoint = "http://127.0.0.1:" + port;
            for (int i = 0; ; i++) {
                try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    break;
                } catch (IOException notYet) {
                    if (i > 200) {
                        throw notYet;
                    }
                    Thread.sleep(50);
                }
            }
        }
        var credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"));
        client = DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials)
                .build();
        async = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(credentials)
                .build();
        DynamoDbInboxStore dynamo = DynamoDbInboxStore.builder(client)
                .asyncClient(async)
                .table(TABLE)
                .build();
        dynamo.createTableIfMissing();
        prepare(dynamo);
        client.putItem(rawPut(DUPLICATE_ID, OwnerToken.random().value()));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        store.close();
        async.close();
        client.close();
        if (dynalite != null) {
            dynalite.destroy();
            dynalite.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private PutItemRequest rawPut(String id) {
        return rawPut(id, OwnerToken.random().value());
    }

    private PutItemRequest rawPut(String id, String owner) {
        return PutItemRequest.builder()
                .tableName(TABLE)
                .item(Map.of(
                        "pk", AttributeValue.builder().s("raw:" + consumer + id).build(),
                        "ow", AttributeValue.builder().s(owner).build(),
                        "ex",
                                AttributeValue.builder()
                                        .n(Long.toString(System.currentTimeMillis()))
                                        .build()))
                .conditionExpression("attribute_not_exists(pk)")
                .build();
    }

    @Benchmark
    public PutItemResponse claim_raw() {
        return client.putItem(rawPut(freshId()));
    }

    /** A conditional put that fails its condition, as a raw duplicate check does. */
    private boolean rawPutExisting(String id) {
        try {
            client.putItem(rawPut(id));
            return true;
        } catch (ConditionalCheckFailedException exists) {
            return false;
        }
    }

    @Benchmark
    public boolean duplicate_raw() {
        return rawPutExisting(DUPLICATE_ID);
    }

    @Benchmark
    public boolean contended_raw() {
        return rawPutExisting(HOT_ID);
    }

    @Benchmark
    public UpdateItemResponse claimComplete_raw() {
        String id = freshId();
        String owner = OwnerToken.random().value();
        client.putItem(rawPut(id, owner));
        return client.updateItem(UpdateItemRequest.builder()
                .tableName(TABLE)
                .key(Map.of(
                        "pk", AttributeValue.builder().s("raw:" + consumer + id).build()))
                .updateExpression("SET st = :c, ex = :ex")
                .conditionExpression("ow = :o")
                .expressionAttributeValues(Map.of(
                        ":c", AttributeValue.builder().s("C").build(),
                        ":ex",
                                AttributeValue.builder()
                                        .n(Long.toString(System.currentTimeMillis() + RETENTION.toMillis()))
                                        .build(),
                        ":o", AttributeValue.builder().s(owner).build()))
                .build());
    }

    @Benchmark
    public int claimAll100_raw() {
        List<CompletableFuture<PutItemResponse>> puts = new ArrayList<>(100);
        for (int i = 0; i < 100; i++) {
            puts.add(async.putItem(rawPut(freshId())));
        }
        puts.forEach(CompletableFuture::join);
        return puts.size();
    }

    @Benchmark
    public int sequential100_store() {
        OwnerToken owner = OwnerToken.random();
        for (int i = 0; i < 100; i++) {
            store.claim(ClaimRequest.of(InboxKey.of(consumer, freshId()), owner, LEASE));
        }
        return 100;
    }
}
