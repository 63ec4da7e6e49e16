package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisInboxStore.Builder#waitForReplicas(int, Duration)} on a Redis Cluster of three
 * primaries with a replica each, started here, and what it changes when a primary fails over
 * before it replicated a claim: without it the claim, already answered ACQUIRED, is lost and a
 * later delivery applies the event again; with it that claim was never acknowledged, so only the
 * later delivery applies it. The failover is a real one: the primary is killed, its replica takes
 * over ({@code CLUSTER FAILOVER TAKEOVER}) and the old primary comes back as its replica.
 */
@Tag("extended")
class RedisReplicationTest {

    private static final Duration LEASE = Duration.ofMinutes(5);
    /** Long enough for a healthy replica on a loaded 2-core machine; a frozen one never answers. */
    private static final Duration WAIT = Duration.ofSeconds(2);

    private static final InboxKey PAYMENT = InboxKey.of("failover", "payment-1");

    @Test
    void withoutWait_aClaimAnsweredAcquiredIsLostInAFailover_andTheEventIsAppliedTwice() throws Exception {
        assertThat(deliveriesAppliedAcrossAFailover(false))
                .as("deliveries answered ACQUIRED: the first, lost with its primary, and the one after the failover")
                .isEqualTo(2);
    }

    @Test
    void withWait_theUnreplicatedClaimIsNeverAcknowledged_soOnlyTheDeliveryAfterTheFailoverApplies() throws Exception {
        assertThat(deliveriesAppliedAcrossAFailover(true))
                .as("deliveries answered ACQUIRED")
                .isEqualTo(1);
    }

    /**
     * The replica of the key's primary is frozen and its link cut, a delivery claims the event, the
     * primary dies, the replica takes over, and a redelivery claims it again; returns how many of
     * the two deliveries were told to apply it.
     */
    private static int deliveriesAppliedAcrossAFailover(boolean waitForReplicas) throws Exception {
        try (RedisProcesses cluster = RedisProcesses.replicatedCluster()) {
            RedisClusterClient client = client(cluster);
            try (RedisInboxStore store = store(client, waitForReplicas)) {
                warmUp(store);
                int primary = cluster.primaryOfSlot(
                        SlotHash.getSlot(RedisKeys.of("inbox").record(PAYMENT)));
                int replica = cluster.replicaOf(primary);
                cluster.pause(replica);
                cluster.cli(primary, "client", "kill", "type", "replica"); // the write below never reaches it

                int applied = 0;
                try {
                    if (store.claim(ClaimRequest.of(PAYMENT, OwnerToken.random(), LEASE))
                            .isAcquired()) {
                        applied++; // the consumer applies the event
                    }
                } catch (InboxStoreException notReplicated) {
                    assertThat(waitForReplicas)
                            .as("only WAIT refuses the claim")
                            .isTrue();
                    assertThat(notReplicated)
                            .hasMessageContaining("0 of 1 replicas")
                            .matches(InboxStoreException::isRetryable);
                }

                cluster.crash(primary);
                cluster.resume(replica);
                cluster.cli(replica, "cluster", "failover", "takeover");
                await("the replica to become a primary", () -> {
                    try {
                        return cluster.cli(replica, "role").startsWith("master");
                    } catch (Exception e) {
                        return false;
                    }
                });
                // The old primary comes back as the new one's replica (WAIT needs one to acknowledge).
                cluster.restart(primary);
                await("the old primary to replicate the new one", () -> {
                    try {
                        return cluster.cli(primary, "info", "replication").contains("master_link_status:up");
                    } catch (Exception e) {
                        return false;
                    }
                });
                OwnerToken redeliveryOwner = OwnerToken.random(); // retried with one owner, as the facade does
                ClaimResult redelivery = eventually(() -> {
                    client.refreshPartitions();
                    return store.claim(ClaimRequest.of(PAYMENT, redeliveryOwner, LEASE));
                });
                if (redelivery.isAcquired()) {
                    applied++;
                }
                return applied;
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** WAIT runs on the connection that wrote: a frozen replica leaves a claim and a completion unacknowledged. */
    @Test
    void withWait_aWriteAFrozenReplicaCannotAcknowledgeFails_andSucceedsOnceItResumes() throws Exception {
        try (RedisProcesses cluster = RedisProcesses.replicatedCluster()) {
            RedisClusterClient client = client(cluster);
            try (RedisInboxStore store = store(client, true)) {
                warmUp(store);
                int primary = cluster.primaryOfSlot(
                        SlotHash.getSlot(RedisKeys.of("inbox").record(PAYMENT)));
                int replica = cluster.replicaOf(primary);
                OwnerToken owner = OwnerToken.random();
                ClaimRequest first = ClaimRequest.of(PAYMENT, owner, LEASE);
                assertThat(eventually(() -> store.claim(first)))
                        .as("acknowledged by the replica")
                        .isEqualTo(ClaimResult.acquired());

                cluster.pause(replica); // still connected: a WAIT on any other connection would answer 1 at once
                assertThatThrownBy(() -> store.complete(PAYMENT, owner, LEASE))
                        .isInstanceOf(InboxStoreException.class)
                        .hasMessageContaining("0 of 1 replicas");
                InboxKey samePrimary = onPrimary(cluster, primary);
                assertThatThrownBy(() -> store.claim(ClaimRequest.of(samePrimary, OwnerToken.random(), LEASE)))
                        .isInstanceOf(InboxStoreException.class)
                        .hasMessageContaining("0 of 1 replicas");

                cluster.resume(replica);
                assertThat(eventually(() -> store.complete(PAYMENT, owner, LEASE)))
                        .as("completing again once the replica acknowledges")
                        .isTrue();
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** Another key of the payments consumer whose record the primary on {@code port} serves (keys spread over slots). */
    private static InboxKey onPrimary(RedisProcesses cluster, int port) throws Exception {
        for (int i = 2; i < 200; i++) {
            InboxKey key = InboxKey.of(PAYMENT.consumer(), "payment-" + i);
            if (cluster.primaryOfSlot(SlotHash.getSlot(RedisKeys.of("inbox").record(key))) == port) {
                return key;
            }
        }
        throw new IllegalStateException("no key of 200 on the primary on port " + port);
    }

    /** On a standalone server without replicas every acknowledged write would be at risk: each fails. */
    @Test
    void withWait_onAServerWithoutReplicas_everyWriteFails() {
        try (RedisInboxStore store = RedisInboxStore.builder(RedisURI.create(TestServers.redis()))
                .prefix("inbox-wait")
                .waitForReplicas(1, Duration.ofMillis(50))
                .build()) {
            assertThatThrownBy(() -> store.claim(ClaimRequest.of(
                            InboxKey.of("wait", UUID.randomUUID().toString()), OwnerToken.random(), LEASE)))
                    .isInstanceOf(InboxStoreException.class)
                    .hasMessageContaining("0 of 1 replicas");
        }
    }

    @Test
    void waitForReplicas_checksItsArguments() {
        RedisInboxStore.Builder builder = RedisInboxStore.builder(RedisURI.create("redis://127.0.0.1:1"));
        assertThatThrownBy(() -> builder.waitForReplicas(0, WAIT)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.waitForReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.waitForReplicas(1, null)).isInstanceOf(IllegalArgumentException.class);
    }

    private static RedisClusterClient client(RedisProcesses cluster) {
        RedisClusterClient client = RedisClusterClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(cluster.port())
                .withTimeout(Duration.ofSeconds(5)) // above WAIT, or the client gives up first
                .build());
        client.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        return client;
    }

    private static RedisInboxStore store(RedisClusterClient client, boolean waitForReplicas) {
        RedisInboxStore.Builder builder = RedisInboxStore.builder(client);
        if (waitForReplicas) {
            builder.waitForReplicas(1, WAIT);
        }
        return builder.build();
    }

    /** Connects and loads the scripts on every primary, so the scenario's first claim is a plain one. */
    private static void warmUp(RedisInboxStore store) throws InterruptedException {
        for (int i = 0; i < 30; i++) {
            // one owner per key, retried as the facade would while a fresh replica catches up
            ClaimRequest request = ClaimRequest.of(InboxKey.of("warm-up-" + i, "e"), OwnerToken.random(), LEASE);
            eventually(() -> store.claim(request));
        }
    }

    private static void await(String what, Supplier<Boolean> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    /**
     * The call's answer once it succeeds: a claim once the client reaches the new primary (it fails
     * while it still routes to the dead one), a write once a fresh replica acknowledges.
     */
    private static <T> T eventually(Supplier<T> call) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return call.get();
            } catch (InboxStoreException | io.lettuce.core.RedisException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(250);
            }
        }
    }
}
