package dev.inbox.redis;

import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/** Stores with a client of their own, for tests that reach a server through a proxy or own it. */
final class RedisTestStores {

    private RedisTestStores() {}

    /** A store on {@code host:port} whose commands time out after {@code timeout}. */
    static RedisInboxStore storeAt(String host, int port, Duration timeout) {
        return RedisInboxStore.builder(RedisURI.builder()
                        .withHost(host)
                        .withPort(port)
                        .withTimeout(timeout)
                        .build())
                .build();
    }

    /** A store on the first server of {@code servers}. */
    static RedisInboxStore storeOn(RedisProcesses servers, Duration timeout) {
        return storeAt("127.0.0.1", servers.port(), timeout);
    }
}
