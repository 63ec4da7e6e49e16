package dev.inbox.http;

import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * The filter on a Redis Cluster: three primaries this test starts from {@code redis-server} (or
 * the Cluster {@code INBOX_TEST_REDIS_CLUSTER_URL} names; {@link RedisProcesses#clusterForTests()}),
 * the records of one consumer spread over them by key.
 */
class RedisClusterIdempotencyFilterTest extends IdempotencyFilterContract {

    private RedisProcesses cluster;
    private RedisClusterClient client;

    @Override
    protected InboxStore createStore() throws Exception {
        cluster = RedisProcesses.clusterForTests();
        client = RedisClusterClient.create(RedisURI.create(cluster.uri()));
        return RedisInboxStore.builder(client).build();
    }

    @Override
    protected void close(InboxStore store) throws Exception {
        try (RedisProcesses stopping = cluster) {
            store.close();
            client.shutdown();
        }
    }
}
