package dev.inbox.redis;

import dev.inbox.testing.RedisProcesses;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;

/**
 * What a test class shares: a client of the standalone test server and a Redis Cluster (the
 * tests' own unless {@code INBOX_TEST_REDIS_CLUSTER_URL} names one) with a client; {@link
 * #close()} shuts both clients down and stops the Cluster.
 */
final class RedisTestServers implements AutoCloseable {

    final RedisClient standalone;
    final RedisClusterClient cluster;
    private final RedisProcesses clusterProcess;

    private RedisTestServers(RedisClient standalone, RedisProcesses clusterProcess) {
        this.standalone = standalone;
        this.clusterProcess = clusterProcess;
        this.cluster = RedisClusterClient.create(clusterProcess.uri());
    }

    static RedisTestServers start() throws Exception {
        RedisClient standalone = RedisClient.create(RedisURI.create(TestServers.redis()));
        try {
            return new RedisTestServers(standalone, RedisProcesses.clusterForTests());
        } catch (Exception | Error e) {
            standalone.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            cluster.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
            clusterProcess.close();
            standalone.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
