package dev.inbox.cli;

import com.mysql.cj.jdbc.MysqlDataSource;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.net.URI;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * Opens a store from the URL an operator gives, with the table or prefix the application uses.
 *
 * @param store the store
 * @param client what the store was built on and does not close itself (a Cluster or DynamoDB client)
 */
record Stores(InboxStore store, Runnable client) implements AutoCloseable {

    /** Closes the store, then its client. */
    @Override
    public void close() {
        try {
            store.close();
        } finally {
            client.run();
        }
    }

    /**
     * The store at {@code url}.
     *
     * @throws IllegalArgumentException if the URL names no store this tool knows
     */
    static Stores open(String url, @Nullable String table, @Nullable String prefix, @Nullable String region) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(url);
            PostgresInboxStore.Builder builder = PostgresInboxStore.builder(dataSource);
            return new Stores((table == null ? builder : builder.table(table)).build(), () -> {});
        }
        if (lower.startsWith("jdbc:mysql:")) {
            MysqlDataSource dataSource = new MysqlDataSource();
            dataSource.setURL(url);
            MysqlInboxStore.Builder builder = MysqlInboxStore.builder(dataSource);
            return new Stores((table == null ? builder : builder.table(table)).build(), () -> {});
        }
        if (lower.startsWith("redis://") || lower.startsWith("rediss://")) {
            RedisInboxStore.Builder builder = RedisInboxStore.builder(RedisURI.create(url));
            return new Stores((prefix == null ? builder : builder.prefix(prefix)).build(), () -> {});
        }
        if (lower.startsWith("redis-cluster://")) {
            RedisClusterClient client = RedisClusterClient.create(RedisURI.create("redis://" + url.substring(16)));
            RedisInboxStore.Builder builder = RedisInboxStore.builder(client);
            return new Stores((prefix == null ? builder : builder.prefix(prefix)).build(), client::shutdown);
        }
        if (lower.startsWith("dynamodb://")) {
            URI endpoint = URI.create("http://" + url.substring("dynamodb://".length()));
            return dynamoDb(DynamoDbClient.builder().endpointOverride(endpoint), table, region);
        }
        if (lower.equals("dynamodb:aws")) {
            return dynamoDb(DynamoDbClient.builder(), table, region);
        }
        throw new IllegalArgumentException("unknown store URL \"" + url + "\": use jdbc:postgresql://…,"
                + " jdbc:mysql://… (MySQL or MariaDB), redis://…, rediss://…, redis-cluster://host:port,"
                + " dynamodb://host:port (a local endpoint) or dynamodb:aws");
    }

    private static Stores dynamoDb(DynamoDbClientBuilder builder, @Nullable String table, @Nullable String region) {
        if (region != null) {
            builder.region(Region.of(region));
        }
        DynamoDbClient client = builder.build();
        DynamoDbInboxStore.Builder store = DynamoDbInboxStore.builder(client);
        return new Stores((table == null ? store : store.table(table)).build(), client::close);
    }
}
