package dev.inbox.mysql;

import dev.inbox.Inbox;
import java.time.Duration;
import java.util.UUID;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * Run by {@link MariadbDriverTest} in a class loader without MySQL Connector/J: the store on MariaDB
 * Connector/J alone, as for a user who excluded the other driver.
 */
public final class WithoutConnectorJ {

    private WithoutConnectorJ() {}

    /** Handles one event twice through {@code url} and returns both outcomes. */
    public static String handleTwice(String url, String table) throws Exception {
        MysqlInboxStore store =
                MysqlInboxStore.builder(new MariaDbDataSource(url)).table(table).build();
        store.createSchemaIfMissing();
        Inbox inbox = Inbox.builder(store)
                .consumer("without-connector-j-" + UUID.randomUUID())
                .lease(Duration.ofSeconds(5))
                .build();
        return inbox.handle("e1", () -> {}).outcome() + " "
                + inbox.handle("e1", () -> {}).outcome();
    }
}
