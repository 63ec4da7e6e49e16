package dev.inbox.redis;

import dev.inbox.InboxStoreException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code WAIT} after the store's writes: how many replicas must acknowledge a write, and for how
 * long to wait, before the store reports it done ({@link RedisInboxStore.Builder#waitForReplicas}).
 * {@code WAIT} covers the writes sent earlier on the same connection, so it runs on the
 * connection that wrote: the store's own, or in a Cluster the connection to each written key's
 * primary, which is the one Lettuce routed the write through.
 */
final class RedisReplicas {

    /** No waiting: writes are reported done once the primary applied them. */
    static final RedisReplicas NONE = new RedisReplicas(0, Duration.ZERO);

    private final int replicas;
    private final long timeoutMillis;

    RedisReplicas(int replicas, Duration timeout) {
        this.replicas = replicas;
        this.timeoutMillis = timeout.toMillis();
    }

    /** True when writes wait for replicas: callers skip collecting written keys otherwise. */
    boolean waits() {
        return replicas > 0;
    }

    /**
     * Waits until {@code replicas} replicas acknowledged the writes of {@code keys}.
     *
     * @throws InboxStoreException (retryable) when fewer did within the timeout
     */
    void await(RedisConnection redis, String what, Collection<byte[]> keys) {
        if (replicas == 0 || keys.isEmpty()) {
            return;
        }
        if (redis.connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
            Map<String, RedisClusterNode> primaries = new LinkedHashMap<>();
            for (byte[] key : keys) {
                int slot = SlotHash.getSlot(key);
                RedisClusterNode primary = cluster.getPartitions().getPartitionBySlot(slot);
                if (primary == null) {
                    throw new InboxStoreException(what + ": no primary known for slot " + slot + " to wait on", null);
                }
                primaries.putIfAbsent(primary.getNodeId(), primary);
            }
            for (RedisClusterNode primary : primaries.values()) {
                // By host and port, not node id: Lettuce keeps the connection it routes a slot's
                // writes through under the primary's address, and the one by node id is another,
                // on which WAIT would count nothing written (RedisReplicationTest proves which).
                String host = primary.getUri().getHost();
                int port = primary.getUri().getPort();
                long acknowledged = RedisCodec.call(
                        what,
                        () -> cluster.getConnection(host, port).sync().waitForReplication(replicas, timeoutMillis));
                check(what, acknowledged, " on " + host + ":" + port);
            }
        } else {
            check(what, RedisCodec.call(what, () -> redis.sync.waitForReplication(replicas, timeoutMillis)), "");
        }
    }

    private void check(String what, long acknowledged, String where) {
        if (acknowledged < replicas) {
            throw new InboxStoreException(
                    what + " was applied by the primary" + where + " but acknowledged by " + acknowledged + " of "
                            + replicas + " replicas within " + timeoutMillis + " ms: a failover now could lose it."
                            + " Retrying is safe (the same owner's claim is ACQUIRED again, completing again is"
                            + " harmless)",
                    null,
                    true);
        }
    }
}
