package dev.inbox.dynamodb;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxStoreException;
import dev.inbox.testing.Dynalite;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ReplicaDescription;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The table check: a single-Region table on dynalite passes, a missing one fails as a store
 * failure; the global-table decision on the descriptions DynamoDB returns for each kind of table
 * (dynalite has no global tables, so those are built with the SDK's own model builders).
 */
class DynamoDbTableCheckTest {

    @Test
    void aSingleRegionTable_passes_andAMissingOne_failsAsTheStore() throws Exception {
        try (Dynalite dynalite = Dynalite.forTests();
                DynamoDbClient client = DynamoDbInboxStoreTest.client(dynalite.endpoint(), Duration.ofSeconds(10))) {
            DynamoDbInboxStore store =
                    DynamoDbInboxStore.builder(client).table("inbox_check").build();
            store.createTableIfMissing();
            assertThatCode(store::checkTable).doesNotThrowAnyException();
            DynamoDbInboxStore missing =
                    DynamoDbInboxStore.builder(client).table("inbox_missing").build();
            assertThatThrownBy(missing::checkTable).isInstanceOf(InboxStoreException.class);
        }
    }

    @Test
    void anEventuallyConsistentGlobalTable_isRefused_sayingWhy() {
        TableDescription global = TableDescription.builder()
                .tableName("inbox")
                .replicas(
                        ReplicaDescription.builder().regionName("eu-west-1").build(),
                        ReplicaDescription.builder().regionName("us-east-1").build())
                .multiRegionConsistency(MultiRegionConsistency.EVENTUAL)
                .build();
        assertThatThrownBy(() -> DynamoDbInboxStore.refuseUnsafe(global))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("last-writer-wins")
                .hasMessageContaining("2 Regions");
        TableDescription unspecified =
                global.toBuilder().multiRegionConsistency((String) null).build();
        assertThatThrownBy(() -> DynamoDbInboxStore.refuseUnsafe(unspecified))
                .as("a global table that does not say it is strongly consistent is eventually consistent")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStronglyConsistentGlobalTable_andASingleRegionOne_pass() {
        TableDescription strong = TableDescription.builder()
                .tableName("inbox")
                .replicas(
                        ReplicaDescription.builder().regionName("us-east-1").build(),
                        ReplicaDescription.builder().regionName("us-east-2").build())
                .multiRegionConsistency(MultiRegionConsistency.STRONG)
                .build();
        assertThatCode(() -> DynamoDbInboxStore.refuseUnsafe(strong)).doesNotThrowAnyException();
        assertThatCode(() -> DynamoDbInboxStore.refuseUnsafe(
                        TableDescription.builder().tableName("inbox").build()))
                .doesNotThrowAnyException();
    }
}
