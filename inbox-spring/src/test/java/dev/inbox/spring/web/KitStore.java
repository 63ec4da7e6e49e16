package dev.inbox.spring.web;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A store the HTTP kit runs on through Spring MVC and WebFlux, opened on its test server ({@link
 * TestServers}; DynamoDB on a dynalite of its own), with what it needs closed with it; the SQL stores
 * with their {@code DataSource}, for transactional mode.
 */
record KitStore(InboxStore store, @Nullable DataSource dataSource, AutoCloseable resources) implements AutoCloseable {

    static KitStore caffeine() {
        return new KitStore(CaffeineInboxStore.builder().build(), null, () -> {});
    }

    static KitStore postgres() {
        HikariDataSource pool = pool(TestServers.postgres());
        PostgresInboxStore store = PostgresInboxStore.builder(pool).build();
        store.createSchemaIfMissing();
        return new KitStore(store, pool, pool);
    }

    static KitStore mysql() {
        HikariDataSource pool = pool(TestServers.mysql());
        MysqlInboxStore store = MysqlInboxStore.builder(pool).build();
        store.createSchemaIfMissing();
        return new KitStore(store, pool, pool);
    }

    static KitStore redis() {
        return new KitStore(
                RedisInboxStore.builder(RedisURI.create(TestServers.redis())).build(), null, () -> {});
    }

    static KitStore dynamodb() throws Exception {
        Dynalite dynalite = Dynalite.forTests();
        DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create(dynalite.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        DynamoDbInboxStore store = DynamoDbInboxStore.builder(client)
                .table("inbox_spring_http_" + UUID.randomUUID().toString().replace("-", ""))
                .build();
        store.createTableIfMissing();
        return new KitStore(store, null, () -> {
            try (Dynalite stopping = dynalite) {
                client.close();
            }
        });
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(10);
        return new HikariDataSource(config);
    }

    /** Closes the store, then what it ran on. */
    @Override
    public void close() throws Exception {
        try (AutoCloseable closing = resources) {
            store.close();
        }
    }
}
