package dev.inbox.redis;

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
import dev.inbox.spi.ClaimShape;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.ObjIntConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The Redis {@link InboxStore} on Lettuce, for a standalone server or a Redis Cluster.
 *
 * <pre>{@code
 * RedisInboxStore store = RedisInboxStore.builder(redisClient).build();          // standalone
 * RedisInboxStore store = RedisInboxStore.builder(redisClusterClient).build();   // cluster
 * }</pre>
 *
 * <p><b>Record.</b> One string per key, named by the {@link RedisKeyLayout} (by default {@code
 * <prefix>:<consumer as hex>:{<tag>}:<id bytes>}, a hash tag per key, so that a Cluster spreads
 * even one consumer over all its primaries), holding {@code I|C <expires ms> <owner>
 * [fingerprint]}: IN_PROGRESS or COMPLETED, when the lease or the retention ends by the server's
 * clock, the owner token and the payload fingerprint; a COMPLETED record that keeps a handler's
 * result has it after a newline, as raw bytes. The key's TTL is that expiry plus the
 * store's grace, so Redis removes the record itself once it may count as absent; {@link #purge()}
 * has nothing to do and returns 0. An IN_PROGRESS record written by a plain new-key claim (below)
 * holds {@code 9e15} + its writer's grace in ms where the expiry goes: its lease ends when its TTL
 * falls to that grace.
 *
 * <p><b>Algorithm.</b> While most keys it sees are new, {@code claim} first writes the key with
 * one plain {@code SET NX GET PX} (no script, no clock; {@link Builder#plainNewKeyClaims}); a key
 * already there goes on to the claim script. Each operation is one Lua script, run atomically by
 * the server with {@code EVALSHA} (and {@code EVAL} after a {@code NOSCRIPT}), deciding by {@code
 * TIME}: claim writes an absent key and reads an existing one in one {@code SET NX GET}, takes a
 * record past expiry + grace, its own lease or an expired one (a takeover) and otherwise answers
 * DUPLICATE (late past retention, with the fingerprint comparison) or BUSY; complete and release
 * compare the owner first. One round trip per operation; {@code claimAll} pipelines one claim script per group of up
 * to {@value #SCRIPT_KEYS} keys: on a standalone server any keys, in a Cluster the keys one primary
 * serves (the script's first key routes the call; the others, of other slots of that node, travel
 * as arguments under the script flag {@code allow-cross-slot-keys}, and Redis refuses any key the
 * node does not serve, so a group that a moved slot split is claimed key by key).
 *
 * <p><b>Durability.</b> A claim acknowledged by a primary that dies before replicating it is lost
 * (replication is asynchronous), and so is everything on a server without persistence that
 * restarts: a redelivery then runs the work again. {@link Builder#waitForReplicas(int, Duration)}
 * makes the store answer only once replicas acknowledged its writes; {@link
 * #checkPersistence(Duration)} warns about a server that keeps nothing across a restart. See
 * {@code docs/redis.md}.
 */
public final class RedisInboxStore implements InboxStore {

    /** The longest result {@link #complete(InboxKey, OwnerToken, Duration, byte[])} keeps: 1 MiB. */
    public static final int MAX_RESULT_BYTES = 1 << 20;

    /** The most keys one {@code claimAll} step pipelines, and one {@code completeAll} step. */
    public static final int BATCH_CHUNK = 1_000;

    /** The most keys one claim script call of {@code claimAll} takes: it blocks the server meanwhile. */
    public static final int SCRIPT_KEYS = 100;

    private static final RedisScript CLAIM = RedisScript.load("claim");
    private static final RedisScript COMPLETE = RedisScript.load("complete");
    private static final System.Logger LOG = System.getLogger(RedisInboxStore.class.getName());
    private static final RedisScript RELEASE = RedisScript.load("release");
    private static final RedisScript RENEW = RedisScript.load("renew");

    private final Supplier<RedisConnection> connect;
    private volatile @Nullable RedisConnection redis; // connected on first use
    private final RedisKeys keys;
    private final byte[] grace;
    private final long graceMillis;
    private final RedisReplicas replicas;
    private final ClaimShape shape = new ClaimShape();
    private final boolean plainNewKeyClaims;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedisInboxStore(
            Supplier<RedisConnection> connect,
            RedisKeys keys,
            Duration grace,
            RedisReplicas replicas,
            boolean plainNewKeyClaims) {
        this.connect = connect;
        this.plainNewKeyClaims = plainNewKeyClaims;
        this.keys = keys;
        this.grace = RedisCodec.millis(grace, 0);
        this.graceMillis = RedisCodec.wholeMillis(grace, 0);
        this.replicas = replicas;
    }

    /**
     * A store on a standalone server (or one reached through Sentinel) of {@code client}. The
     * store opens its own connection and closes it; the client stays the caller's.
     *
     * @throws IllegalArgumentException if {@code client} is null
     */
    public static Builder builder(RedisClient client) {
        requireNonNull(client, "client");
        return new Builder(() -> RedisConnection.of(client.connect(ByteArrayCodec.INSTANCE), null));
    }

    /**
     * A store on the Redis Cluster of {@code client}. The store opens its own connection and
     * closes it; the client stays the caller's.
     *
     * @throws IllegalArgumentException if {@code client} is null
     */
    public static Builder builder(RedisClusterClient client) {
        requireNonNull(client, "client");
        return new Builder(() -> RedisConnection.of(client.connect(ByteArrayCodec.INSTANCE), null));
    }

    /**
     * A store on the standalone server at {@code uri}, with a client the store creates and shuts
     * down on {@link #close()}. The URI's timeout bounds every command.
     *
     * @throws IllegalArgumentException if {@code uri} is null
     */
    public static Builder builder(RedisURI uri) {
        requireNonNull(uri, "uri");
        return new Builder(() -> {
            RedisClient client = RedisClient.create(uri);
            try {
                return RedisConnection.of(client.connect(ByteArrayCodec.INSTANCE), client);
            } catch (RuntimeException e) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw e;
            }
        });
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        ensureOpen();
        byte[] key = keys.record(request.key());
        boolean written = plainNewKeyClaims && shape.writeFirst();
        if (written) {
            byte[] found = writeNewKey(key, request);
            if (found == null) {
                shape.found(true);
                replicas.await(redis(), "claim of " + request.key(), List.of(key));
                return ClaimResult.acquired();
            }
            shape.found(false);
        }
        List<Object> reply = RedisCodec.call(
                "claim of " + request.key(),
                () -> CLAIM.run(
                        redis().sync, ScriptOutputType.MULTI, key, claimArgs(List.of(request), new int[] {0}, null)));
        ClaimResult answer = RedisCodec.decodeClaim(reply, 0);
        if (!written) {
            shape.found(RedisCodec.wasNewKey(reply, 0));
        }
        if (answer.isAcquired()) {
            replicas.await(redis(), "claim of " + request.key(), List.of(key));
        }
        return answer;
    }

    /**
     * Claims {@code key} if it is new, with one plain {@code SET NX GET PX} and no script or clock:
     * the record {@code I <LEASE_IN_TTL + grace> <owner> [fp]} whose TTL is the lease + the grace.
     * Returns null when it was written, else what is there (the claim script decides that case), or
     * an empty array when the server refused the command (the script then says which Redis it needs).
     */
    private byte @Nullable [] writeNewKey(byte[] key, ClaimRequest request) {
        String fingerprint = request.fingerprint();
        byte[] record = RedisCodec.ascii("I " + (RedisCodec.LEASE_IN_TTL + graceMillis) + " "
                + request.owner().value() + (fingerprint == null ? "" : " " + fingerprint));
        long ttl = RedisCodec.wholeMillis(request.lease(), 1) + graceMillis;
        try {
            return redis().sync.setGet(key, record, SetArgs.Builder.nx().px(ttl));
        } catch (RedisCommandExecutionException refused) {
            return new byte[0];
        } catch (RedisException e) {
            throw RedisCodec.failure("claim of " + request.key(), e);
        }
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        ensureOpen();
        return BatchClaims.claimAll(requests, BATCH_CHUNK, this::claimChunk, this::claim);
    }

    /**
     * Pipelines one script per group of keys ({@link #scriptGroups}) and waits for them all. A group
     * that hit NOSCRIPT is sent once more with the script's source, which loads it: single claims of
     * new keys run no script ({@link #writeNewKey}), so after the server's script cache was emptied
     * (a new server, a restart, a failover, {@code SCRIPT FLUSH}) nothing else would load it, and
     * every batch would fall back to claiming its keys one by one. The keys of a group that in a
     * Cluster failed for any reason the server gave (a slot that moved, {@code TRYAGAIN}) are claimed
     * alone — with the same owner, so a key the failed call did claim is ACQUIRED again.
     */
    private ClaimResult[] claimChunk(List<ClaimRequest> chunk) {
        ClaimResult[] answers = new ClaimResult[chunk.size()];
        byte[][] recordKeys = new byte[chunk.size()][];
        for (int i = 0; i < recordKeys.length; i++) {
            recordKeys[i] = keys.record(chunk.get(i).key());
        }
        List<int[]> groups = scriptGroups(recordKeys);
        boolean clustered = redis().connection instanceof StatefulRedisClusterConnection;
        // In a Cluster a group's keys are of several slots: the first is declared (it routes the
        // call), the others travel as arguments. On a standalone server every key is declared.
        Function<int[], byte[][]> declared =
                group -> clustered ? new byte[][] {recordKeys[group[0]]} : keysOf(recordKeys, group);
        Function<int[], byte[][]> args = group -> claimArgs(chunk, group, clustered ? recordKeys : null);
        boolean[] noScript = {false};
        pipelined(
                "claimAll of " + chunk.size() + " keys",
                groups,
                failure -> {
                    if (failure instanceof RedisNoScriptException) {
                        noScript[0] = true;
                        return true;
                    }
                    return clustered && failure instanceof RedisCommandExecutionException;
                },
                group -> CLAIM.<List<Object>>start(
                        redis().async, ScriptOutputType.MULTI, declared.apply(group), args.apply(group)),
                (reply, g) -> answer(answers, groups.get(g), reply));
        if (noScript[0]) {
            for (int[] group : groups) {
                if (answers[group[0]] != null) {
                    continue;
                }
                try {
                    answer(
                            answers,
                            group,
                            CLAIM.run(redis().sync, ScriptOutputType.MULTI, declared.apply(group), args.apply(group)));
                } catch (RedisException e) {
                    if (!(clustered && e instanceof RedisCommandExecutionException)) {
                        throw RedisCodec.failure("claimAll of " + chunk.size() + " keys", e);
                    } // its keys are claimed alone
                }
            }
        }
        awaitReplicas(
                "claimAll of " + chunk.size() + " keys",
                chunk,
                ClaimRequest::key,
                i -> answers[i] != null && answers[i].isAcquired());
        return answers;
    }

    /** The answers of one claim script call, to the requests at {@code group}. */
    private static void answer(ClaimResult[] answers, int[] group, List<Object> reply) {
        for (int j = 0; j < group.length; j++) {
            answers[group[j]] = RedisCodec.decodeClaim(reply, j);
        }
    }

    /**
     * Completes the batch with one pipelined script per item, in chunks of {@value #BATCH_CHUNK};
     * an item whose script Redis did not know yet (NOSCRIPT) is completed alone.
     */
    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        List<HeldKey> batch = InboxArguments.requireNoNulls(held, "held");
        byte[] keep = RedisCodec.millis(requirePositive(retention, "retention"), 1);
        ensureOpen();
        Boolean[] answers = new Boolean[batch.size()];
        for (int from = 0; from < batch.size(); from += BATCH_CHUNK) {
            int offset = from;
            List<HeldKey> chunk = batch.subList(from, Math.min(batch.size(), from + BATCH_CHUNK));
            pipelined(
                    "completeAll of " + chunk.size() + " keys",
                    chunk,
                    failure -> failure instanceof RedisNoScriptException,
                    item -> COMPLETE.<Long>start(
                            redis().async,
                            ScriptOutputType.INTEGER,
                            keys.record(item.key()),
                            RedisCodec.ascii(item.owner().value()),
                            keep,
                            grace),
                    (reply, i) -> answers[offset + i] = reply == 1);
            awaitReplicas(
                    "completeAll of " + chunk.size() + " keys",
                    chunk,
                    HeldKey::key,
                    i -> Boolean.TRUE.equals(answers[offset + i]));
        }
        List<Boolean> result = new ArrayList<>(batch.size());
        for (int i = 0; i < answers.length; i++) {
            result.add(
                    answers[i] != null
                            ? answers[i]
                            : complete(batch.get(i).key(), batch.get(i).owner(), retention));
        }
        return result;
    }

    /** After a pipelined batch: waits for replicas on the keys of the items {@code written} says changed. */
    private <T> void awaitReplicas(String what, List<T> chunk, Function<T, InboxKey> keyOf, IntPredicate written) {
        if (!replicas.waits()) {
            return; // no key bytes built on the hot path when nothing waits
        }
        List<byte[]> changed = new ArrayList<>();
        for (int i = 0; i < chunk.size(); i++) {
            if (written.test(i)) {
                changed.add(keys.record(keyOf.apply(chunk.get(i))));
            }
        }
        replicas.await(redis(), what, changed);
    }

    /**
     * Sends one script call per item without waiting, then collects the replies within the
     * connection's timeout; an item whose call failed as {@code answerAlone} accepts gets no
     * answer (the caller runs it alone: after NOSCRIPT, that loads the script).
     */
    private <T, R> void pipelined(
            String what,
            List<T> items,
            Predicate<Throwable> answerAlone,
            Function<T, RedisFuture<R>> start,
            ObjIntConsumer<R> answer) {
        List<RedisFuture<R>> replies = new ArrayList<>(items.size());
        RedisCodec.call(what, () -> {
            for (T item : items) {
                replies.add(start.apply(item));
            }
            return null;
        });
        long deadline = System.nanoTime() + redis().timeout.toNanos();
        for (int i = 0; i < items.size(); i++) {
            try {
                long left = Math.max(1, deadline - System.nanoTime());
                answer.accept(replies.get(i).get(left, TimeUnit.NANOSECONDS), i);
            } catch (ExecutionException e) {
                if (!answerAlone.test(e.getCause())) {
                    throw RedisCodec.failure(what, e.getCause());
                }
            } catch (TimeoutException e) {
                throw new InboxStoreException(what + " timed out after " + redis().timeout, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InboxStoreException(what + " was interrupted", e);
            }
        }
    }

    /**
     * The indices of {@code recordKeys} cut into groups of at most {@value #SCRIPT_KEYS} that one
     * script call takes: consecutive keys on a standalone server; in a Cluster, keys whose slots
     * the same primary serves, as the client last saw the slot map (the script may touch keys of
     * several slots of its node; a call that meets a key its node does not serve, after a slot
     * moved, fails there and its keys are claimed one by one).
     */
    private List<int[]> scriptGroups(byte[][] recordKeys) {
        List<int[]> groups = new ArrayList<>();
        if (!(redis().connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
            for (int from = 0; from < recordKeys.length; from += SCRIPT_KEYS) {
                int start = from;
                int[] group = new int[Math.min(SCRIPT_KEYS, recordKeys.length - start)];
                Arrays.setAll(group, j -> start + j);
                groups.add(group);
            }
            return groups;
        }
        Partitions partitions = cluster.getPartitions();
        Map<Object, List<Integer>> byNode = new LinkedHashMap<>();
        for (int i = 0; i < recordKeys.length; i++) {
            int slot = SlotHash.getSlot(recordKeys[i]);
            RedisClusterNode node = partitions.getPartitionBySlot(slot);
            byNode.computeIfAbsent(node == null ? slot : node.getNodeId(), n -> new ArrayList<>())
                    .add(i);
        }
        for (List<Integer> node : byNode.values()) {
            for (int from = 0; from < node.size(); from += SCRIPT_KEYS) {
                groups.add(node.subList(from, Math.min(node.size(), from + SCRIPT_KEYS)).stream()
                        .mapToInt(Integer::intValue)
                        .toArray());
            }
        }
        return groups;
    }

    private static byte[][] keysOf(byte[][] recordKeys, int[] group) {
        byte[][] selected = new byte[group.length][];
        for (int j = 0; j < group.length; j++) {
            selected[j] = recordKeys[group[j]];
        }
        return selected;
    }

    /**
     * The claim script's arguments for the requests at {@code group}: the grace; how many keys
     * follow as arguments — all but the first of the group, taken from {@code undeclared}, or none
     * when that is null; those keys; then the owner, lease and fingerprint of each request.
     */
    private byte[][] claimArgs(List<ClaimRequest> requests, int[] group, byte @Nullable [][] undeclared) {
        int more = undeclared == null ? 0 : group.length - 1;
        byte[][] args = new byte[2 + more + 3 * group.length][];
        args[0] = grace;
        args[1] = RedisCodec.ascii(Integer.toString(more));
        for (int j = 1; j <= more; j++) {
            args[1 + j] = undeclared[group[j]];
        }
        int at = 2 + more;
        for (int j = 0; j < group.length; j++) {
            ClaimRequest request = requests.get(group[j]);
            String fingerprint = request.fingerprint();
            args[at + 3 * j] = RedisCodec.ascii(request.owner().value());
            args[at + 1 + 3 * j] = RedisCodec.millis(request.lease(), 1);
            args[at + 2 + 3 * j] = fingerprint == null ? new byte[0] : RedisCodec.ascii(fingerprint);
        }
        return args;
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        byte[] keep = RedisCodec.millis(requirePositive(retention, "retention"), 1);
        ensureOpen();
        return ownerScript(COMPLETE, "complete of " + key, key, owner, keep);
    }

    /**
     * Keeps {@code result} in the record's value, after its header, at most {@link
     * #MAX_RESULT_BYTES}: every duplicate's claim reads it back in the same script call.
     */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        byte[] keep = RedisCodec.millis(requirePositive(retention, "retention"), 1);
        requireResult(result, MAX_RESULT_BYTES, this);
        ensureOpen();
        byte[] record = keys.record(key);
        Long done = RedisCodec.call(
                "complete of " + key,
                () -> COMPLETE.run(
                        redis().sync,
                        ScriptOutputType.INTEGER,
                        record,
                        RedisCodec.ascii(owner.value()),
                        keep,
                        grace,
                        result));
        if (done == 1) {
            replicas.await(redis(), "complete of " + key, List.of(record));
        }
        return done == 1;
    }

    /** {@value #MAX_RESULT_BYTES}. */
    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        byte[] extension = RedisCodec.millis(requirePositive(lease, "lease"), 1);
        ensureOpen();
        return ownerScript(RENEW, "renewal of " + key, key, owner, extension);
    }

    /** Runs a script that acts on the owner's record for {@code millis} (plus this writer's grace): 1 when done. */
    private boolean ownerScript(RedisScript script, String what, InboxKey key, OwnerToken owner, byte[] millis) {
        byte[] record = keys.record(key);
        Long done = RedisCodec.call(
                what,
                () -> script.run(
                        redis().sync,
                        ScriptOutputType.INTEGER,
                        record,
                        RedisCodec.ascii(owner.value()),
                        millis,
                        grace));
        if (done == 1) {
            replicas.await(redis(), what, List.of(record));
        }
        return done == 1;
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        ensureOpen();
        Long done = RedisCodec.call(
                "release of " + key,
                () -> RELEASE.run(
                        redis().sync, ScriptOutputType.INTEGER, keys.record(key), RedisCodec.ascii(owner.value())));
        return done == 1;
    }

    /**
     * Asks the server how it keeps its data across a restart ({@code CONFIG GET appendonly save})
     * and logs a WARNING when a restart would lose records — every record without {@code
     * appendonly} or snapshots, those since the last snapshot with snapshots only: redeliveries of
     * events applied within {@code retention} are then applied again. Call it once at startup (the
     * Spring Boot starter does). A server that refuses {@code CONFIG}, as managed services often
     * do, is reported as unknown, with an INFO line.
     *
     * @throws IllegalArgumentException if {@code retention} is null or not positive
     * @throws IllegalStateException if the store is closed
     */
    public RedisPersistence checkPersistence(Duration retention) {
        requirePositive(retention, "retention");
        ensureOpen();
        RedisPersistence persistence;
        try {
            Map<String, String> config = redis().sync.configGet("appendonly", "save");
            String save = config.get("save");
            persistence = new RedisPersistence(
                    true, "yes".equalsIgnoreCase(config.get("appendonly")), save != null && !save.isBlank());
        } catch (RuntimeException e) {
            LOG.log(
                    Level.INFO,
                    "could not ask Redis how it persists its data (" + e.getMessage() + "); without appendonly, a"
                            + " restart of the server lets redeliveries of already applied events through");
            return new RedisPersistence(false, false, false);
        }
        if (persistence.losesEverythingOnRestart()) {
            LOG.log(
                    Level.WARNING,
                    "the Redis server keeps neither an append-only file nor snapshots: a restart loses every inbox"
                            + " record, and redeliveries of events applied within the retention (" + retention
                            + ") are then applied again. Set appendonly yes (with appendfsync always, every"
                            + " acknowledged claim survives), or accept that window");
        } else if (!persistence.appendOnly()) {
            LOG.log(
                    Level.WARNING,
                    "the Redis server keeps snapshots only: a restart loses the inbox records written since the"
                            + " last one, and redeliveries of those events are then applied again. Set appendonly yes"
                            + " (with appendfsync always, every acknowledged claim survives)");
        }
        return persistence;
    }

    /**
     * Returns 0: every record carries a TTL of its expiry plus the grace, so Redis removes it
     * itself (lazily on access and by its active expiry cycle), and a record past expiry + grace is
     * never read as live.
     */
    @Override
    public long purge() {
        ensureOpen();
        return 0;
    }

    /**
     * Copies every record of this store's prefix that is stored in the layout {@code from} to this
     * store's layout, with its value and its remaining time to live, unless this layout already
     * holds a record of that key; returns how many it copied. The records in {@code from} stay
     * (they expire by their TTL), so going back to the old layout keeps them.
     *
     * <p>Run it once, with no consumer running on either layout, after the instances of the old
     * layout stopped and before the first instance of the new one claims: a claim made on one
     * layout is not seen on the other, so while both serve, a redelivery can be applied again. It
     * can be run again (what was copied is not copied twice). It scans the whole key space ({@code
     * SCAN} with a {@code MATCH}, on every primary of a Cluster) and pipelines the reads and writes
     * of each page of keys.
     *
     * @return how many records were copied
     * @throws IllegalArgumentException if {@code from} is null or this store's own layout
     * @throws IllegalStateException if the store is closed
     * @throws InboxStoreException if Redis fails or times out (what was copied stays; run it again)
     */
    public long copyRecordsFrom(RedisKeyLayout from) {
        requireNonNull(from, "from");
        requireArgument(from != keys.layout(), "from must be another layout than this store's " + keys.layout());
        ensureOpen();
        return RedisLayoutCopy.copy(redis(), RedisKeys.of(keys.prefix(), from), keys);
    }

    /**
     * The operator's operations, by the server's clock. {@code inspect}, {@code releaseLease} and
     * {@code forget} are one script on the record's key; {@code stuck} and {@code count} {@code
     * SCAN} the whole key space (every primary of a Cluster) for the consumer's keys and read them
     * in pipelines: their cost grows with every key the server holds, so run them as an operator
     * does, not in a loop. Records past expiry + grace are removed by their TTL, so none shows
     * {@code EXPIRED}.
     *
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public InboxAdmin admin() {
        ensureOpen();
        return new RedisAdmin(this);
    }

    /** Waits for the configured replicas to acknowledge a change to {@code record} (see the builder). */
    void replicate(String what, byte[] record) {
        replicas.await(redis(), what, List.of(record));
    }

    /** A {@link RedisSequenceGuard} on this store's connection and prefix. */
    public RedisSequenceGuard sequenceGuard() {
        ensureOpen();
        return new RedisSequenceGuard(this);
    }

    /** Closes the store's connection (and the client, when the store created it). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (this) {
                RedisConnection connected = redis;
                if (connected != null) {
                    connected.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        RedisConnection connected = redis;
        return "RedisInboxStore[" + (connected == null ? "not connected yet" : connected.connection) + "]";
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the store is closed");
        }
    }

    /**
     * The store's connection, opened on first use: a store built while Redis is down works once it
     * is back, and until then each operation fails with a retryable {@link InboxStoreException}.
     */
    RedisConnection redis() {
        RedisConnection connected = redis;
        if (connected != null) {
            return connected;
        }
        synchronized (this) {
            ensureOpen();
            if (redis == null) {
                redis = RedisCodec.call("connect to Redis", connect);
            }
            return redis;
        }
    }

    RedisKeys keys() {
        return keys;
    }

    /** Configures a {@link RedisInboxStore}; each setter checks its argument at once. */
    public static final class Builder {

        private final Supplier<RedisConnection> connect;
        private String prefix = "inbox";
        private RedisKeyLayout layout = RedisKeyLayout.SPREAD;
        private Duration grace = Duration.ofHours(1);
        private RedisReplicas replicas = RedisReplicas.NONE;
        private boolean plainNewKeyClaims = true;

        private Builder(Supplier<RedisConnection> connect) {
            this.connect = connect;
        }

        /**
         * The prefix of every key; default {@code inbox}.
         *
         * @throws IllegalArgumentException if not 1 to 64 of {@code A-Z a-z 0-9 _ . : -}
         */
        public Builder prefix(String prefix) {
            this.prefix = RedisKeys.requirePrefix(prefix);
            return this;
        }

        /**
         * How records are named, which decides their Cluster slots; default {@link
         * RedisKeyLayout#SPREAD}, a hash tag per key. {@link RedisKeyLayout#CONSUMER_SLOT} keeps
         * the layout of inbox 0.1 (a consumer in one slot); see {@link
         * RedisInboxStore#copyRecordsFrom(RedisKeyLayout)} for moving
         * from it. Sequence keys are the same in both.
         *
         * @throws IllegalArgumentException if null
         */
        public Builder keyLayout(RedisKeyLayout layout) {
            this.layout = requireNonNull(layout, "layout");
            return this;
        }

        /**
         * How long a record is kept past its expiry, so that a duplicate arriving then is still
         * suppressed and reported late; default 1 hour. It is part of each key's TTL.
         *
         * @throws IllegalArgumentException if null or negative
         */
        public Builder grace(Duration grace) {
            this.grace = requireNonNegative(grace, "grace");
            return this;
        }

        /**
         * Builds the store. It connects on its first operation, not here, so that a service can start
         * while Redis is down; until Redis answers, each operation fails with a retryable {@link
         * InboxStoreException}.
         */
        public RedisInboxStore build() {
            return new RedisInboxStore(connect, RedisKeys.of(prefix, layout), grace, replicas, plainNewKeyClaims);
        }

        /**
         * Whether {@code claim} tries a key with one plain {@code SET NX GET} before the claim
         * script, while most keys it sees are new; default true. Such a record keeps its lease in
         * its TTL instead of an expiry by the server's clock (no script, no clock: the cheapest write
         * Redis has), and a key that is already there costs the script as a second round trip; the
         * store turns to the script first while more than about one claim in five finds a record
         * ({@link dev.inbox.spi.ClaimShape}). Answers are the same either way.
         *
         * <p>Turn it off while instances of an inbox snapshot from before it (without this setting)
         * still claim on the same keys, and on again once none is left: they read such a record as
         * busy until its TTL ends — the lease plus the grace — so an event whose claimer died waits
         * that much longer on them instead of the lease; it is never run twice. Every version reads
         * the records of every other. {@code claimAll} always claims by script.
         */
        public Builder plainNewKeyClaims(boolean plainNewKeyClaims) {
            this.plainNewKeyClaims = plainNewKeyClaims;
            return this;
        }

        /**
         * After every claim that acquires a key, and every completion or renewal, waits ({@code
         * WAIT}) until {@code replicas} replicas of the written key's primary acknowledged it, at
         * most {@code timeout}; when fewer did, the operation fails with a retryable {@link
         * InboxStoreException} instead of answering, so a consumer never applies an event on a claim
         * that a failover can still lose. Default: off — Redis replicates asynchronously, and a
         * primary that dies before a replica received a claim it acknowledged lets a redelivery
         * through after the failover (see {@code docs/redis.md}).
         *
         * <p>Costs a round trip per write (WAIT answers once a replica acknowledged, about one
         * round trip more) and blocks the store's connection meanwhile; with a replica down or
         * lagging, writes fail until it is back. It narrows the window, it does not close it: a
         * replica can acknowledge and still lose the write if it restarts without persistence. Keep
         * {@code timeout} well below the client's command timeout.
         *
         * @param replicas how many replicas must acknowledge, at least 1
         * @param timeout how long to wait for them, at least 1 ms
         * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} is null
         *     or under 1 ms
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            requireArgument(replicas >= 1, "replicas must be at least 1 but was " + replicas);
            requirePositive(timeout, "timeout");
            requireArgument(timeout.toMillis() >= 1, "timeout must be at least 1 ms but was " + timeout);
            this.replicas = new RedisReplicas(replicas, timeout);
            return this;
        }
    }
}
