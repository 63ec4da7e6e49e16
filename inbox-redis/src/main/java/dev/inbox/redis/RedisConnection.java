package dev.inbox.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The store's connection, standalone or cluster, and the client when the store owns it. */
final class RedisConnection {
    final StatefulConnection<byte[], byte[]> connection;
    final RedisClusterCommands<byte[], byte[]> sync;
    final RedisClusterAsyncCommands<byte[], byte[]> async;
    final Duration timeout;
    final @Nullable AbstractRedisClient ownedClient;

    private RedisConnection(
            StatefulConnection<byte[], byte[]> connection,
            RedisClusterCommands<byte[], byte[]> sync,
            RedisClusterAsyncCommands<byte[], byte[]> async,
            @Nullable AbstractRedisClient ownedClient) {
        this.connection = connection;
        this.sync = sync;
        this.async = async;
        this.timeout = connection.getTimeout();
        this.ownedClient = ownedClient;
    }

    static RedisConnection of(StatefulRedisConnection<byte[], byte[]> c, @Nullable AbstractRedisClient owned) {
        return new RedisConnection(c, c.sync(), c.async(), owned);
    }

    static RedisConnection of(StatefulRedisClusterConnection<byte[], byte[]> c, @Nullable AbstractRedisClient owned) {
        return new RedisConnection(c, c.sync(), c.async(), owned);
    }

    void close() {
        try {
            connection.close();
        } finally {
            if (ownedClient != null) {
                ownedClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }
}
