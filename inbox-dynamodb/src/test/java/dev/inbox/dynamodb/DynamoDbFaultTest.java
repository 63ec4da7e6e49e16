package dev.inbox.dynamodb;

import dev.inbox.SequenceGuard;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.StoreFaultContract;
import dev.inbox.testing.Dynalite;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Rules E3–E5 against dynalite through the kit's fault proxy, with the SDK's default retries
 * bounded by an API-call timeout: a lost reply is retried by the SDK itself, and the conditional
 * write then finds the store's own claim (rule C5).
 */
class DynamoDbFaultTest extends StoreFaultContract {

    private static final String TABLE = "inbox_fault_it";
    private static Dynalite dynalite;

    @Override
    protected InetSocketAddress server() throws Exception {
        synchronized (DynamoDbFaultTest.class) {
            if (dynalite == null) {
                dynalite = Dynalite.forTests();
                try (DynamoDbClient direct =
                        DynamoDbInboxStoreTest.client(dynalite.endpoint(), Duration.ofSeconds(10))) {
                    DynamoDbInboxStore.builder(direct).table(TABLE).build().createTableIfMissing();
                }
            }
        }
        URI endpoint = URI.create(dynalite.endpoint());
        return new InetSocketAddress(endpoint.getHost(), endpoint.getPort());
    }

    @AfterAll
    static void stopDynalite() {
        if (dynalite != null) {
            dynalite.close();
        }
    }

    @Override
    protected InboxStore createStore(String host, int port, Duration timeout) {
        DynamoDbClient client = closeAfterTest(DynamoDbInboxStoreTest.client("http://" + host + ":" + port, timeout));
        return DynamoDbInboxStore.builder(client).table(TABLE).build();
    }

    @Override
    protected SequenceGuard guardOf(InboxStore store) {
        return ((DynamoDbInboxStore) store).sequenceGuard();
    }

    @Override
    protected boolean purgeTalksToServer() {
        return false; // records expire natively
    }
}
