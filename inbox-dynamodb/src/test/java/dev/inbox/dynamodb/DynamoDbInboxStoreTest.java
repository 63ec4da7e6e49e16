package dev.inbox.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.SequenceGuard;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.tck.StoreFailureContract;
import dev.inbox.testing.Dynalite;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

class DynamoDbInboxStoreTest {

    static final String TABLE = "inbox_it";

    static Dynalite dynalite;
    static DynamoDbClient client;
    static DynamoDbAsyncClient asyncClient;

    /**
     * Six attempts where the SDK's default makes three: dynalite (a single Node process) on a
     * loaded two-core machine now and then closes a connection mid-request while the async client
     * sends a large batch's requests at once, and the SDK retries such a request. What the kit
     * checks is the store's answers, not the emulator's stamina; the fault kit
     * ({@code DynamoDbFaultTest}, on {@link #client}'s default retries) checks what a store does
     * when requests do fail.
     */
    private static final software.amazon.awssdk.retries.api.RetryStrategy EMULATOR_RETRIES =
            software.amazon.awssdk.awscore.retry.AwsRetryStrategy.standardRetryStrategy().toBuilder()
                    .maxAttempts(6)
                    .build();

    @BeforeAll
    static void start() throws Exception {
        dynalite = Dynalite.forTests();
        String endpoint = dynalite.endpoint();
        client = DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(
                        c -> c.apiCallAttemptTimeout(Duration.ofSeconds(10)).retryStrategy(EMULATOR_RETRIES))
                .build();
        asyncClient = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> c.retryStrategy(EMULATOR_RETRIES))
                .build();
        DynamoDbInboxStore.builder(client).table(TABLE).build().createTableIfMissing();
    }

    @AfterAll
    static void stop() {
        if (asyncClient != null) {
            asyncClient.close();
        }
        if (client != null) {
            client.close();
        }
        if (dynalite != null) {
            dynalite.close();
        }
    }

    static DynamoDbClient client(String endpoint, Duration timeout) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> c.apiCallTimeout(timeout).apiCallAttemptTimeout(timeout))
                .build();
    }

    static DynamoDbInboxStore store(Duration grace) {
        return DynamoDbInboxStore.builder(client)
                .asyncClient(asyncClient)
                .table(TABLE)
                .grace(grace)
                .build();
    }

    @Nested
    class Kit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return store(grace);
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((DynamoDbInboxStore) store).createTableIfMissing();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }

        @Override
        protected int raceRounds() {
            return 150; // dynalite serves ~1k conditional puts/s here; 300 took ~25 s of the default build
        }

        @Override
        protected int largeBatchSize() {
            return 1_200;
        }
    }

    @Nested
    @Tag("extended")
    class WithoutAsyncClientKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return DynamoDbInboxStore.builder(client).table(TABLE).grace(grace).build();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }

        @Override
        protected int raceRounds() {
            return 100;
        }

        @Override
        protected int largeBatchSize() {
            return 1_100;
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return store(Duration.ofHours(1)).sequenceGuard();
        }

        @Override
        protected int raceRounds() {
            return 100;
        }
    }

    @Nested
    class FailureKit extends StoreFailureContract {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            DynamoDbClient unreachable = client("http://" + host + ":" + port, timeout);
            return new DelegatingClose(
                    DynamoDbInboxStore.builder(unreachable).table(TABLE).build(), unreachable);
        }

        @Override
        protected boolean purgeTalksToServer() {
            return false;
        }
    }

    /** Closes the test's own client with the store. */
    record DelegatingClose(DynamoDbInboxStore store, DynamoDbClient client) implements InboxStore {
        @Override
        public ClaimResult claim(ClaimRequest request) {
            return store.claim(request);
        }

        @Override
        public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
            return store.claimAll(requests);
        }

        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            return store.complete(key, owner, retention);
        }

        @Override
        public boolean release(InboxKey key, OwnerToken owner) {
            return store.release(key, owner);
        }

        @Override
        public long purge() {
            return store.purge();
        }

        @Override
        public dev.inbox.spi.InboxAdmin admin() {
            return store.admin();
        }

        @Override
        public void close() {
            store.close();
            client.close();
        }
    }

    // --------------------------------------------------------------------- DynamoDB-specific tests

    private final String consumer = "ddb-" + UUID.randomUUID();

    /**
     * Requests per operation, counted by an SDK interceptor: one per new claim, completion or
     * release; at most two for a duplicate or a busy key on a server that does not return the item
     * with a failed condition (dynalite), one on DynamoDB itself.
     */
    @Test
    void requestsPerOperation_areOneForAClaim_andAtMostTwoForADuplicateOrBusy() {
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        String endpoint = dynalite != null ? dynalite.endpoint() : System.getenv("INBOX_TEST_DYNAMODB_URL");
        try (DynamoDbClient counted = DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c ->
                        c.addExecutionInterceptor(new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                            @Override
                            public void beforeTransmission(
                                    software.amazon.awssdk.core.interceptor.Context.BeforeTransmission context,
                                    software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
                                requests.incrementAndGet();
                            }
                        }))
                .build()) {
            DynamoDbInboxStore store =
                    DynamoDbInboxStore.builder(counted).table(TABLE).build();
            InboxKey key = InboxKey.of(consumer, "counted");
            OwnerToken owner = OwnerToken.random();
            assertThat(countRequests(requests, () -> store.claim(ClaimRequest.of(key, owner, Duration.ofMinutes(1)))))
                    .as("new claim")
                    .isEqualTo(1);
            assertThat(countRequests(
                            requests,
                            () -> store.claim(ClaimRequest.of(key, OwnerToken.random(), Duration.ofMinutes(1)))))
                    .as("busy")
                    .isBetween(1, 2);
            assertThat(countRequests(requests, () -> store.complete(key, owner, Duration.ofHours(1))))
                    .as("complete")
                    .isEqualTo(1);
            assertThat(countRequests(
                            requests,
                            () -> store.claim(ClaimRequest.of(key, OwnerToken.random(), Duration.ofMinutes(1)))))
                    .as("duplicate")
                    .isBetween(1, 2);
        }
    }

    private static int countRequests(java.util.concurrent.atomic.AtomicInteger requests, Runnable operation) {
        int before = requests.get();
        operation.run();
        return requests.get() - before;
    }

    @Test
    void table_isValidated() {
        for (String bad : new String[] {"", "ab", "in box", "x".repeat(256), "in/box"}) {
            assertThatThrownBy(() -> DynamoDbInboxStore.builder(client).table(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void missingTable_failsWithANonRetryableStoreException() {
        DynamoDbInboxStore store =
                DynamoDbInboxStore.builder(client).table("inbox_never_created").build();
        assertThatThrownBy(() -> store.claim(
                        ClaimRequest.of(InboxKey.of(consumer, "x"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isInstanceOf(InboxStoreException.class)
                .satisfies(
                        e -> assertThat(((InboxStoreException) e).isRetryable()).isFalse());
    }

    @Test
    void keys_ofOneConsumer_cannotCollideWithAnothersThroughTheJoin() {
        DynamoDbInboxStore store = store(Duration.ofHours(1));
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(InboxKey.of(consumer + "a", "b"), owner, Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(
                        ClaimRequest.of(InboxKey.of(consumer, "ab"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    void claimAll_onTheAsyncClient_claimsEveryKeyOfALargeBatch() {
        DynamoDbInboxStore store = store(Duration.ofHours(1));
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(ClaimRequest.of(InboxKey.of(consumer, "batch-" + i), OwnerToken.random(), Duration.ofMinutes(1)));
        }
        assertThat(store.claimAll(batch)).allMatch(ClaimResult.acquired()::equals);
    }
}
