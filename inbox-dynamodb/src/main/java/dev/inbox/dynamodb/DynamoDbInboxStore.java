package dev.inbox.dynamodb;

import static dev.inbox.spi.InboxArguments.requireArgument;
import static dev.inbox.spi.InboxArguments.requireNonNegative;
import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;
import static dev.inbox.spi.InboxArguments.requireResult;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.BatchClaims;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.StoredRecord;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * The DynamoDB {@link InboxStore} on AWS SDK v2.
 *
 * <pre>{@code
 * DynamoDbInboxStore store = DynamoDbInboxStore.builder(dynamoDbClient)
 *         .asyncClient(dynamoDbAsyncClient)   // optional: parallel claimAll
 *         .table("inbox")
 *         .build();
 * store.createTableIfMissing();
 * }</pre>
 *
 * <p><b>Item.</b> Partition key {@code pk} (string) = {@code r:<consumer length>:<consumer><id>}
 * (the length prefix makes the join unambiguous), {@code ow} owner, {@code st} {@code I} or
 * {@code C}, {@code ex} expiry (epoch ms: end of the lease or the retention), {@code rm} expiry +
 * grace (epoch ms, when the item counts as absent), {@code ttl} the same in epoch seconds for
 * DynamoDB's native TTL, and {@code fp} the fingerprint when given.
 *
 * <p><b>Algorithm.</b> Claim is one conditional {@code PutItem}: {@code attribute_not_exists(pk)
 * OR rm <= :now OR (st = I AND (ow = :owner OR ex <= :now))}. When the condition fails, the item
 * that failed it comes back with the exception ({@code ReturnValuesOnConditionCheckFailure =
 * ALL_OLD}); a server that does not return it (emulators) costs one strongly consistent {@code
 * GetItem}, which only explains the answer — the conditional write decided it — and a claim whose
 * item vanished meanwhile is sent again. Complete and release are {@code UpdateItem} / {@code
 * DeleteItem} conditioned on the owner. {@code claimAll} sends conditional puts in parallel on
 * the async client, at most {@link Builder#batchConcurrency(int)} at a time: {@code
 * BatchWriteItem} takes no conditions, and {@code TransactWriteItems} is all-or-nothing, so one
 * duplicate would fail every other key of the batch.
 *
 * <p><b>Time.</b> DynamoDB conditions cannot read a server clock, so {@code :now} is this JVM's
 * clock: instances whose clocks differ by {@code s} may see a lease as expired up to {@code s}
 * early or late. Keep clocks synchronised (NTP keeps them within milliseconds) and leases far
 * longer than the skew. Expiry is always checked in the condition, never left to TTL, which
 * deletes expired items only lazily (often within a day); {@link #purge()} therefore returns 0.
 */
public final class DynamoDbInboxStore implements InboxStore {

    /** The most claims one {@code claimAll} step sends before waiting for them. */
    public static final int BATCH_CHUNK = 1_000;

    /**
     * The longest result {@link #complete(InboxKey, OwnerToken, Duration, byte[])} keeps: 350,000
     * bytes, which leaves room for the rest of the item within DynamoDB's 400 KB.
     */
    public static final int MAX_RESULT_BYTES = 350_000;

    private static final System.Logger LOG = System.getLogger(DynamoDbInboxStore.class.getName());
    private static final Pattern TABLE = Pattern.compile("[A-Za-z0-9_.-]{3,255}");
    private static final int MAX_ATTEMPTS = 8;
    private static final String CLAIM_CONDITION =
            "attribute_not_exists(pk) OR rm <= :now OR (st = :held AND (ow = :owner OR ex <= :now))";

    private final DynamoDbClient client;
    private final @Nullable DynamoDbAsyncClient asyncClient;
    private final String table;
    private final long graceMillis;
    private final int batchConcurrency;
    private final Clock clock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DynamoDbInboxStore(Builder builder) {
        this.client = builder.client;
        this.asyncClient = builder.asyncClient;
        this.table = builder.table;
        this.graceMillis = DynamoDbItems.millis(builder.grace);
        this.batchConcurrency = builder.batchConcurrency;
        this.clock = builder.clock;
    }

    /**
     * Starts configuring a store on {@code client}, which stays the caller's.
     *
     * @throws IllegalArgumentException if {@code client} is null
     */
    public static Builder builder(DynamoDbClient client) {
        return new Builder(requireNonNull(client, "client"));
    }

    /**
     * Creates the table (on-demand billing, partition key {@code pk}) unless it exists, waits until
     * it is active, and enables native TTL on {@code ttl}. A server without the TTL API (such as an
     * emulator) is logged and tolerated: expiry never depends on TTL.
     *
     * @throws InboxStoreException if the table cannot be created
     */
    public void createTableIfMissing() {
        ensureOpen();
        DynamoDbItems.call("create table " + table, () -> {
            try {
                client.createTable(b -> b.tableName(table)
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .attributeDefinitions(AttributeDefinition.builder()
                                .attributeName("pk")
                                .attributeType(ScalarAttributeType.S)
                                .build())
                        .keySchema(KeySchemaElement.builder()
                                .attributeName("pk")
                                .keyType(KeyType.HASH)
                                .build()));
            } catch (ResourceInUseException exists) {
                // created before, perhaps by another instance
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (client.describeTable(b -> b.tableName(table)).table().tableStatus() != TableStatus.ACTIVE) {
                if (System.nanoTime() > deadline) {
                    throw new InboxStoreException("table " + table + " did not become ACTIVE", null);
                }
                sleep(200);
            }
            return null;
        });
        try {
            client.updateTimeToLive(b -> b.tableName(table)
                    .timeToLiveSpecification(t -> t.attributeName("ttl").enabled(true)));
        } catch (SdkException e) {
            LOG.log(
                    Level.WARNING,
                    "could not enable TTL on " + table + " (" + e.getMessage()
                            + "); expired items are still treated as absent, but stay stored until TTL is enabled");
        }
    }

    /**
     * Refuses a table that cannot keep the inbox's promise, with a message that says why: a global
     * table replicated to other Regions with eventual consistency, where conditional writes in two
     * Regions resolve last-writer-wins, so a delivery in each can both be answered {@code
     * ACQUIRED}. A single-Region table and a multi-Region strongly consistent (MRSC) global table
     * pass. Call it once at startup (the Spring Boot starter does).
     *
     * @throws IllegalStateException if the table is an eventually consistent global table
     * @throws InboxStoreException if DynamoDB could not describe the table (a missing table too)
     */
    public void checkTable() {
        ensureOpen();
        TableDescription description = DynamoDbItems.call(
                "describing table " + table,
                () -> client.describeTable(b -> b.tableName(table)).table());
        refuseUnsafe(description);
    }

    /** The decision of {@link #checkTable()} on a table's description. */
    static void refuseUnsafe(TableDescription description) {
        if (description.hasReplicas()
                && !description.replicas().isEmpty()
                && description.multiRegionConsistency() != MultiRegionConsistency.STRONG) {
            throw new IllegalStateException("table " + description.tableName() + " is a global table replicated to "
                    + description.replicas().size() + " Regions with eventual consistency: conditional writes in two"
                    + " Regions resolve last-writer-wins, so two deliveries of one event, one per Region, can both"
                    + " be ACQUIRED and applied. Use a single-Region table for the inbox, or a multi-Region"
                    + " strongly consistent (MRSC) global table");
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        ensureOpen();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            long now = clock.millis();
            try {
                PutItemResponse response =
                        DynamoDbItems.call("claim of " + request.key(), () -> client.putItem(put(request, now)));
                return StoredRecord.answer(DynamoDbItems.record(response.attributes(), now), true, request);
            } catch (DynamoDbItems.ConditionalFailure failure) {
                Map<String, AttributeValue> item = failure.item != null ? failure.item : read(request.key());
                ClaimResult answer = StoredRecord.answer(DynamoDbItems.record(item, clock.millis()), false, request);
                if (answer != null) {
                    return answer;
                }
            }
        }
        throw new InboxStoreException(
                "claim of " + request.key() + " found its item changing " + MAX_ATTEMPTS + " times", null);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        ensureOpen();
        return BatchClaims.claimAll(requests, BATCH_CHUNK, this::claimChunk, this::claim);
    }

    /** Parallel conditional puts; a key whose condition failed is classified by the single claim. */
    private ClaimResult[] claimChunk(List<ClaimRequest> chunk) {
        ClaimResult[] answers = new ClaimResult[chunk.size()];
        if (asyncClient == null) {
            return answers; // no async client: every key goes to the single claim
        }
        Semaphore permits = new Semaphore(batchConcurrency);
        List<CompletableFuture<PutItemResponse>> puts = new ArrayList<>(chunk.size());
        long[] sent = new long[chunk.size()];
        for (int i = 0; i < sent.length; i++) {
            permits.acquireUninterruptibly();
            // The time of each put, not of the batch: a put sent late (waiting for a permit) must
            // not get a lease shortened by the wait, nor one already expired.
            sent[i] = clock.millis();
            puts.add(asyncClient.putItem(put(chunk.get(i), sent[i])).whenComplete((r, e) -> permits.release()));
        }
        for (int i = 0; i < answers.length; i++) {
            try {
                PutItemResponse response = puts.get(i).join();
                answers[i] =
                        StoredRecord.answer(DynamoDbItems.record(response.attributes(), sent[i]), true, chunk.get(i));
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                    throw DynamoDbItems.failure("claimAll of " + chunk.size() + " keys", e.getCause());
                }
            }
        }
        return answers;
    }

    private PutItemRequest put(ClaimRequest request, long now) {
        long expires = now + DynamoDbItems.millis(request.lease());
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", DynamoDbItems.s(DynamoDbItems.recordKey(request.key())));
        item.put("ow", DynamoDbItems.s(request.owner().value()));
        item.put("st", DynamoDbItems.s("I"));
        item.put("ex", DynamoDbItems.n(expires));
        item.put("rm", DynamoDbItems.n(expires + graceMillis));
        item.put("ttl", DynamoDbItems.n((expires + graceMillis) / 1000 + 1));
        if (request.fingerprint() != null) {
            item.put("fp", DynamoDbItems.s(request.fingerprint()));
        }
        return PutItemRequest.builder()
                .tableName(table)
                .item(item)
                .conditionExpression(CLAIM_CONDITION)
                .expressionAttributeValues(Map.of(
                        ":now",
                        DynamoDbItems.n(now),
                        ":held",
                        DynamoDbItems.s("I"),
                        ":owner",
                        DynamoDbItems.s(request.owner().value())))
                .returnValues(ReturnValue.ALL_OLD)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long keep = DynamoDbItems.millis(requirePositive(retention, "retention"));
        ensureOpen();
        return complete(key, owner, keep, null);
    }

    /**
     * Keeps {@code result} in the item's binary attribute {@code rs}, at most {@link
     * #MAX_RESULT_BYTES}.
     */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long keep = DynamoDbItems.millis(requirePositive(retention, "retention"));
        requireResult(result, MAX_RESULT_BYTES, this);
        ensureOpen();
        return complete(key, owner, keep, result);
    }

    /** {@value #MAX_RESULT_BYTES}: an item holds at most 400 KB, its key and record included. */
    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    private boolean complete(InboxKey key, OwnerToken owner, long keep, byte @Nullable [] result) {
        if (updateHeld("complete of " + key, key, owner, keep, true, result)) {
            return true;
        }
        // Not an IN_PROGRESS record of this owner: a repeat of a completion it made is still true.
        StoredRecord record = DynamoDbItems.record(read(key), clock.millis());
        return record != null
                && record.completed()
                && !record.gone()
                && record.owner().equals(owner.value());
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long extension = DynamoDbItems.millis(requirePositive(lease, "lease"));
        ensureOpen();
        return updateHeld("renewal of " + key, key, owner, extension, false, null);
    }

    /**
     * Moves the expiry of the owner's IN_PROGRESS record to {@code keepMillis} from now, turning it
     * COMPLETED when {@code complete}, with {@code result} when not null; false when the condition
     * failed (not this owner's live IN_PROGRESS record), and then nothing changed.
     */
    private boolean updateHeld(
            String what, InboxKey key, OwnerToken owner, long keepMillis, boolean complete, byte @Nullable [] result) {
        long now = clock.millis();
        long expires = now + keepMillis;
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":held", DynamoDbItems.s("I"),
                ":owner", DynamoDbItems.s(owner.value()),
                ":now", DynamoDbItems.n(now),
                ":ex", DynamoDbItems.n(expires),
                ":rm", DynamoDbItems.n(expires + graceMillis),
                ":ttl", DynamoDbItems.n((expires + graceMillis) / 1000 + 1)));
        if (complete) {
            values.put(":done", DynamoDbItems.s("C"));
        }
        if (result != null) {
            values.put(":rs", AttributeValue.fromB(SdkBytes.fromByteArray(result)));
        }
        try {
            DynamoDbItems.call(
                    what,
                    () -> client.updateItem(b -> b.tableName(table)
                            .key(Map.of("pk", DynamoDbItems.s(DynamoDbItems.recordKey(key))))
                            .updateExpression((complete ? "SET st = :done, " : "SET ")
                                    + "ex = :ex, rm = :rm, #ttl = :ttl" + (result != null ? ", rs = :rs" : ""))
                            .conditionExpression("ow = :owner AND st = :held AND rm > :now")
                            .expressionAttributeNames(Map.of("#ttl", "ttl"))
                            .expressionAttributeValues(values)));
            return true;
        } catch (DynamoDbItems.ConditionalFailure failure) {
            return false;
        }
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        ensureOpen();
        try {
            DynamoDbItems.call(
                    "release of " + key,
                    () -> client.deleteItem(b -> b.tableName(table)
                            .key(Map.of("pk", DynamoDbItems.s(DynamoDbItems.recordKey(key))))
                            .conditionExpression("ow = :owner AND st = :held AND rm > :now")
                            .expressionAttributeValues(Map.of(
                                    ":owner",
                                    DynamoDbItems.s(owner.value()),
                                    ":held",
                                    DynamoDbItems.s("I"),
                                    ":now",
                                    DynamoDbItems.n(clock.millis())))));
            return true;
        } catch (DynamoDbItems.ConditionalFailure failure) {
            return false;
        }
    }

    /**
     * Returns 0: DynamoDB's TTL deletes items on its own, lazily, and an item past expiry + grace
     * is treated as absent by every condition whether or not it is still stored.
     */
    @Override
    public long purge() {
        ensureOpen();
        return 0;
    }

    /**
     * The operator's operations. {@code inspect} is one strongly consistent {@code GetItem}, {@code
     * releaseLease} and {@code forget} one conditional {@code DeleteItem}; {@code stuck} and {@code
     * count} {@code Scan} the whole table (DynamoDB bills every item scanned, not only the
     * consumer's). Times are this JVM's clock, as for the claims; an item past expiry + grace that
     * TTL has not deleted yet shows {@code EXPIRED}.
     *
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public InboxAdmin admin() {
        ensureOpen();
        return new DynamoDbAdmin(this);
    }

    /** A {@link DynamoDbSequenceGuard} on this store's client and table. */
    public DynamoDbSequenceGuard sequenceGuard() {
        ensureOpen();
        return new DynamoDbSequenceGuard(this);
    }

    /** Later operations throw {@link IllegalStateException}; the clients stay the caller's. */
    @Override
    public void close() {
        closed.set(true);
    }

    @Override
    public String toString() {
        return "DynamoDbInboxStore[" + table + "]";
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the store is closed");
        }
    }

    DynamoDbClient client() {
        return client;
    }

    String table() {
        return table;
    }

    Clock clock() {
        return clock;
    }

    private Map<String, AttributeValue> read(InboxKey key) {
        return DynamoDbItems.call(
                        "read of " + key,
                        () -> client.getItem(b -> b.tableName(table)
                                .key(Map.of("pk", DynamoDbItems.s(DynamoDbItems.recordKey(key))))
                                .consistentRead(true)))
                .item();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InboxStoreException("interrupted", e);
        }
    }

    /** Configures a {@link DynamoDbInboxStore}; each setter checks its argument at once. */
    public static final class Builder {

        private final DynamoDbClient client;
        private @Nullable DynamoDbAsyncClient asyncClient;
        private String table = "inbox";
        private Duration grace = Duration.ofHours(1);
        private int batchConcurrency = 16;
        private Clock clock = Clock.systemUTC();

        private Builder(DynamoDbClient client) {
            this.client = client;
        }

        /**
         * The async client {@code claimAll} sends its parallel puts on; without one, a batch is
         * claimed key by key.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder asyncClient(DynamoDbAsyncClient asyncClient) {
            this.asyncClient = requireNonNull(asyncClient, "asyncClient");
            return this;
        }

        /**
         * The table; default {@code inbox}.
         *
         * @throws IllegalArgumentException if not 3 to 255 of {@code A-Z a-z 0-9 _ . -}
         */
        public Builder table(String table) {
            requireNonNull(table, "table");
            requireArgument(
                    TABLE.matcher(table).matches(),
                    "table must be 3 to 255 of A-Z a-z 0-9 _ . - but was \"" + table + "\"");
            this.table = table;
            return this;
        }

        /**
         * How long an item is kept past its expiry, so that a duplicate arriving then is still
         * suppressed and reported late; default 1 hour.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder grace(Duration grace) {
            this.grace = requireNonNegative(grace, "grace");
            return this;
        }

        /**
         * How many puts of one {@code claimAll} are in flight at once; default 16.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder batchConcurrency(int batchConcurrency) {
            requireArgument(batchConcurrency > 0, "batchConcurrency must be positive but was " + batchConcurrency);
            this.batchConcurrency = batchConcurrency;
            return this;
        }

        /**
         * The clock conditions compare with; default the system clock (UTC). See the class
         * documentation on skew.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder clock(Clock clock) {
            this.clock = requireNonNull(clock, "clock");
            return this;
        }

        /** Builds the store; it does not call DynamoDB until used. */
        public DynamoDbInboxStore build() {
            return new DynamoDbInboxStore(this);
        }
    }
}
