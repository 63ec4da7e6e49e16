package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Where records live on a real Redis Cluster in each {@link RedisKeyLayout}, and {@link
 * RedisInboxStore#copyRecordsFrom(RedisKeyLayout)} moving records between layouts on a standalone
 * server and a Cluster.
 */
class RedisKeyLayoutTest extends RedisServersTest {

    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration RETENTION = Duration.ofMinutes(10);

    private final String prefix = "inbox-layout-" + UUID.randomUUID().toString().replace("-", "");

    @Test
    void spreadLayout_splitsOneConsumerEvenlyOverEveryPrimary() {
        Map<String, Long> perPrimary = claimAndCount(RedisKeyLayout.SPREAD, 3_000);
        assertThat(perPrimary.values())
                .as("records per primary")
                .allSatisfy(count -> assertThat(count)
                        .isBetween(
                                Math.round(0.9 * 3_000 / perPrimary.size()),
                                Math.round(1.1 * 3_000 / perPrimary.size())));
        assertThat(perPrimary.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(3_000);
    }

    @Test
    void consumerSlotLayout_keepsOneConsumerOnOnePrimary() {
        Map<String, Long> perPrimary = claimAndCount(RedisKeyLayout.CONSUMER_SLOT, 300);
        assertThat(perPrimary.values()).containsOnlyOnce(300L);
        assertThat(perPrimary.values().stream().filter(count -> count > 0)).hasSize(1);
    }

    /** Claims {@code events} keys of one consumer in one claimAll and counts this test's keys on each primary. */
    private Map<String, Long> claimAndCount(RedisKeyLayout layout, int events) {
        try (RedisInboxStore store = RedisInboxStore.builder(cluster)
                .prefix(prefix)
                .keyLayout(layout)
                .build()) {
            List<ClaimRequest> batch = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                batch.add(ClaimRequest.of(InboxKey.of("billing", "event-" + i), OwnerToken.random(), LEASE));
            }
            assertThat(store.claimAll(batch)).containsOnly(ClaimResult.acquired());
        }
        Map<String, Long> perPrimary = new LinkedHashMap<>();
        try (StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.connect(ByteArrayCodec.INSTANCE)) {
            for (RedisClusterNode node : connection.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    perPrimary.put(
                            node.getUri().toString(),
                            count(connection.getConnection(node.getNodeId()).sync()));
                }
            }
        }
        return perPrimary;
    }

    private long count(io.lettuce.core.api.sync.RedisKeyCommands<byte[], byte[]> node) {
        ScanArgs match = ScanArgs.Builder.matches(prefix + ":*").limit(1_000);
        long count = 0;
        KeyScanCursor<byte[]> page = node.scan(match);
        count += page.getKeys().size();
        while (!page.isFinished()) {
            page = node.scan(ScanCursor.of(page.getCursor()), match);
            count += page.getKeys().size();
        }
        return count;
    }

    /**
     * claimAll sends one script per primary, by the slot map the client holds. Slots that moved
     * since (a resharding) send a call to a node that no longer serves some of its keys; that
     * call fails and its keys are claimed one by one — each key claimed exactly once, none lost.
     */
    @Test
    @Tag("extended") // 17 s: CI and -Pextended
    void claimAll_afterSlotsMoved_claimsEveryKey() throws Exception {
        try (RedisProcesses own = RedisProcesses.start()) {
            RedisClusterClient client = RedisClusterClient.create(own.uri());
            try (RedisInboxStore store =
                    RedisInboxStore.builder(client).prefix(prefix).build()) {
                assertThat(store.claimAll(batch("warm-", 300, OwnerToken.random())))
                        .containsOnly(ClaimResult.acquired());
                assertThat(scriptCalls(own, primaries(own), "rejected_calls"))
                        .as("one call per primary: its keys' slots differ, yet it is accepted")
                        .isZero();
                long failed = scriptCalls(own, primaries(own), "failed_calls"); // NOSCRIPT, once a node
                // Hand the empty slots of the coming keys that the first node serves to another primary.
                List<String[]> primaries = primaries(own);
                String from = own.cli(own.port(), "cluster", "myid").strip();
                String to = primaries.stream()
                        .filter(node -> !node[0].equals(from))
                        .findFirst()
                        .orElseThrow()[0];
                java.util.Set<Integer> moved = new java.util.TreeSet<>();
                RedisKeys names = RedisKeys.of(prefix);
                for (ClaimRequest request : batch("moved-", 300, OwnerToken.random())) {
                    int slot = io.lettuce.core.cluster.SlotHash.getSlot(names.record(request.key()));
                    if (own.primaryOfSlot(slot) == own.port()) {
                        moved.add(slot);
                    }
                }
                assertThat(moved).hasSizeGreaterThan(10);
                for (String[] node : primaries) {
                    for (int slot : moved) {
                        own.cli(portOf(node[1]), "cluster", "setslot", Integer.toString(slot), "node", to);
                    }
                }
                OwnerToken owner = OwnerToken.random();
                assertThat(store.claimAll(batch("moved-", 300, owner))).containsOnly(ClaimResult.acquired());
                assertThat(store.claimAll(batch("moved-", 300, OwnerToken.random())))
                        .as("every key is held by the first batch's owner")
                        .containsOnly(ClaimResult.busy());
                assertThat(scriptCalls(own, primaries, "rejected_calls") + scriptCalls(own, primaries, "failed_calls"))
                        .as("calls that met a moved slot were refused or failed, and their keys claimed alone")
                        .isGreaterThan(failed);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** The {@code CLUSTER NODES} lines of the primaries, split at spaces. */
    private static List<String[]> primaries(RedisProcesses cluster) throws Exception {
        return cluster.cli(cluster.port(), "cluster", "nodes")
                .lines()
                .map(line -> line.split(" "))
                .filter(node -> node[2].contains("master"))
                .toList();
    }

    /**
     * EVALSHA calls of the primaries, from INFO commandstats: {@code rejected_calls} (refused before
     * running: CROSSSLOT, MOVED) or {@code failed_calls} (failed while running: NOSCRIPT, a key
     * the node does not serve).
     */
    private static long scriptCalls(RedisProcesses cluster, List<String[]> primaries, String which) throws Exception {
        long rejected = 0;
        for (String[] node : primaries) {
            java.util.regex.Matcher calls = java.util.regex.Pattern.compile("cmdstat_evalsha:.*" + which + "=(\\d+)")
                    .matcher(cluster.cli(portOf(node[1]), "info", "commandstats"));
            if (calls.find()) {
                rejected += Long.parseLong(calls.group(1));
            }
        }
        return rejected;
    }

    private static int portOf(String address) { // ip:port@busport
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1, address.indexOf('@')));
    }

    private static List<ClaimRequest> batch(String ids, int size, OwnerToken owner) {
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            batch.add(ClaimRequest.of(InboxKey.of("billing", ids + i), owner, LEASE));
        }
        return batch;
    }

    @Test
    void copyRecordsFrom_carriesEveryRecordOver_onAStandaloneServer() {
        copiesEveryRecord(() -> RedisInboxStore.builder(standalone));
    }

    @Test
    void copyRecordsFrom_carriesEveryRecordOver_onACluster() {
        copiesEveryRecord(() -> RedisInboxStore.builder(cluster));
    }

    private void copiesEveryRecord(Supplier<RedisInboxStore.Builder> builder) {
        InboxKey done = InboxKey.of("billing", "done {with braces}");
        InboxKey plain = InboxKey.of("mailer", "plain");
        InboxKey held = InboxKey.of("billing", "held");
        InboxKey fresh = InboxKey.of("billing", "fresh");
        OwnerToken oldOwner = OwnerToken.random();
        try (RedisInboxStore old = builder.get()
                        .prefix(prefix)
                        .keyLayout(RedisKeyLayout.CONSUMER_SLOT)
                        .build();
                RedisInboxStore other = builder.get()
                        .prefix(prefix + "-other")
                        .keyLayout(RedisKeyLayout.CONSUMER_SLOT)
                        .build()) {
            for (InboxKey key : List.of(done, plain, held)) {
                assertThat(old.claim(ClaimRequest.of(key, oldOwner, LEASE))).isEqualTo(ClaimResult.acquired());
            }
            assertThat(old.complete(done, oldOwner, RETENTION, "reply\n\u0000".getBytes(StandardCharsets.UTF_8)))
                    .isTrue();
            assertThat(old.complete(plain, oldOwner, RETENTION)).isTrue();
            other.claim(ClaimRequest.of(fresh, oldOwner, LEASE)); // another prefix: not this store's record
        }
        try (RedisInboxStore store = builder.get().prefix(prefix).build()) {
            assertThat(store.claim(ClaimRequest.of(plain, OwnerToken.random(), LEASE)))
                    .as("before the copy, the new layout does not see the old records")
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.release(plain, OwnerToken.random())).isFalse();
        }
        try (RedisInboxStore store = builder.get().prefix(prefix).build()) {
            store.claim(ClaimRequest.of(InboxKey.of("billing", "noise"), OwnerToken.random(), LEASE));
        }
        try (RedisInboxStore store = builder.get().prefix(prefix).build()) {
            // "plain" was claimed on the new layout above: the copy leaves that newer record alone
            assertThat(store.copyRecordsFrom(RedisKeyLayout.CONSUMER_SLOT)).isEqualTo(2);
            assertThat(store.copyRecordsFrom(RedisKeyLayout.CONSUMER_SLOT))
                    .as("run again")
                    .isZero();
            ClaimResult duplicate = store.claim(ClaimRequest.of(done, OwnerToken.random(), LEASE));
            assertThat(duplicate.status()).isEqualTo(ClaimStatus.DUPLICATE);
            assertThat(new String(duplicate.storedResult(), StandardCharsets.UTF_8))
                    .isEqualTo("reply\n\u0000");
            assertThat(duplicate.pastRetention()).isNegative().isGreaterThan(RETENTION.negated());
            assertThat(store.claim(ClaimRequest.of(held, OwnerToken.random(), LEASE)))
                    .as("the old owner's lease goes on")
                    .isEqualTo(ClaimResult.busy());
            assertThat(store.complete(held, oldOwner, RETENTION))
                    .as("and it is still the old owner's to complete")
                    .isTrue();
            assertThat(store.claim(ClaimRequest.of(fresh, OwnerToken.random(), LEASE)))
                    .isEqualTo(ClaimResult.acquired());
        }
        try (RedisInboxStore back = builder.get()
                .prefix(prefix)
                .keyLayout(RedisKeyLayout.CONSUMER_SLOT)
                .build()) {
            assertThat(back.claim(ClaimRequest.of(done, OwnerToken.random(), LEASE))
                            .status())
                    .as("the old records stay, for going back")
                    .isEqualTo(ClaimStatus.DUPLICATE);
        }
    }

    @Test
    void copyRecordsFrom_keepsEachRecordsTimeToLive() throws Exception {
        InboxKey key = InboxKey.of("billing", "ttl");
        OwnerToken owner = OwnerToken.random();
        try (RedisInboxStore old = RedisInboxStore.builder(standalone)
                .prefix(prefix)
                .keyLayout(RedisKeyLayout.CONSUMER_SLOT)
                .grace(Duration.ZERO)
                .build()) {
            old.claim(ClaimRequest.of(key, owner, LEASE));
            old.complete(key, owner, Duration.ofSeconds(30));
        }
        try (RedisInboxStore store =
                        RedisInboxStore.builder(standalone).prefix(prefix).build();
                StatefulRedisConnection<byte[], byte[]> raw = standalone.connect(ByteArrayCodec.INSTANCE)) {
            assertThat(store.copyRecordsFrom(RedisKeyLayout.CONSUMER_SLOT)).isEqualTo(1);
            RedisCommands<byte[], byte[]> sync = raw.sync();
            long oldTtl =
                    sync.pttl(RedisKeys.of(prefix, RedisKeyLayout.CONSUMER_SLOT).record(key));
            long newTtl = sync.pttl(RedisKeys.of(prefix).record(key));
            assertThat(newTtl).isPositive().isLessThanOrEqualTo(30_000).isBetween(oldTtl - 5_000, oldTtl + 5_000);
        }
    }

    @Test
    void copyRecordsFrom_refusesBadArguments_beforeAnyIo() {
        RedisInboxStore store = RedisInboxStore.builder(RedisURI.create("redis://127.0.0.1:1"))
                .prefix(prefix)
                .build();
        assertThatThrownBy(() -> store.copyRecordsFrom(RedisKeyLayout.SPREAD))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("another layout");
        assertThatThrownBy(() -> store.copyRecordsFrom(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from");
        store.close();
        assertThatThrownBy(() -> store.copyRecordsFrom(RedisKeyLayout.CONSUMER_SLOT))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RedisInboxStore.builder(standalone).keyLayout(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("layout");
    }
}
