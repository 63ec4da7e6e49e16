package dev.inbox.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class that talks to the standalone test server ({@link #standalone}) and a Redis Cluster
 * ({@link #cluster}), opened before its tests and closed after them ({@link RedisTestServers}).
 */
abstract class RedisServersTest {

    static RedisTestServers servers;
    static RedisClient standalone;
    static RedisClusterClient cluster;

    @BeforeAll
    static void connect() throws Exception {
        servers = RedisTestServers.start();
        standalone = servers.standalone;
        cluster = servers.cluster;
    }

    @AfterAll
    static void disconnect() {
        if (servers != null) {
            servers.close();
        }
    }
}
