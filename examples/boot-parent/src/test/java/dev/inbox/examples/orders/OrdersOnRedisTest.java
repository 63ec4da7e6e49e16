package dev.inbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.TestServers;
import io.lettuce.core.LettuceVersion;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same service with Redis as the inbox store, in lease mode, on Boot's Lettuce: the rows still go
 * to PostgreSQL, the claims to Redis.
 */
class OrdersOnRedisTest extends OrdersServiceContract {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("inbox.store", () -> "redis");
        registry.add("inbox.redis.url", TestServers::redis);
        registry.add("inbox.kafka.transactional", () -> "false");
        registry.add("inbox.rabbit.transactional", () -> "false");
    }

    @Autowired
    InboxStore store;

    @Test
    void runsOnBootsOwnLettuce() {
        assertThat(store).isInstanceOf(RedisInboxStore.class);
        assertThat(LettuceVersion.getVersion()).as("Lettuce").startsWith(System.getProperty("boot.lettuce.version"));
    }
}
