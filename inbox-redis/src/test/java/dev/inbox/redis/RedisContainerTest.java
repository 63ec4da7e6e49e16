package dev.inbox.redis;

import dev.inbox.SequenceGuard;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The kit against a Redis server that Testcontainers started (image {@code redis:7}, or {@code
 * INBOX_TEST_REDIS_IMAGE}), whatever else answers on this machine. Runs in the {@code containers}
 * profile: {@code ./mvnw verify -Pcontainers} on a machine with Docker.
 */
@Tag("containers")
class RedisContainerTest {

    static RedisClient client;

    @BeforeAll
    static void startContainer() {
        client = RedisClient.create(RedisURI.create(TestServers.redisContainer()));
    }

    @AfterAll
    static void shutDown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Nested
    class Kit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return RedisInboxStore.builder(client)
                    .prefix("inbox-ct")
                    .grace(grace)
                    .build();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return RedisInboxStore.builder(client).prefix("inbox-ct").build().sequenceGuard();
        }
    }
}
