package dev.inbox.http;

import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.testing.Dynalite;
import java.net.URI;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The filter on DynamoDB: a dynalite of this test's own ({@link Dynalite#forTests()}). */
class DynamoDbIdempotencyFilterTest extends IdempotencyFilterContract {

    private Dynalite dynalite;
    private DynamoDbClient client;

    @Override
    protected InboxStore createStore() throws Exception {
        dynalite = Dynalite.forTests();
        client = DynamoDbClient.builder()
                .endpointOverride(URI.create(dynalite.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        DynamoDbInboxStore store = DynamoDbInboxStore.builder(client)
                .table("inbox_http_" + UUID.randomUUID().toString().replace("-", ""))
                .build();
        store.createTableIfMissing();
        return store;
    }

    @Override
    protected void close(InboxStore store) throws Exception {
        try (Dynalite stopping = dynalite;
                DynamoDbClient closing = client) {
            store.close();
        }
    }
}
