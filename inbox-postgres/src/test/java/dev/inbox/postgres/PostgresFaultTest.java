package dev.inbox.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.SequenceGuard;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.StoreFaultContract;
import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Rules E3–E5 against the real server through the kit's fault proxy, with the setup users run: a
 * HikariCP pool with connect and socket timeouts, in front of {@link PostgresInboxStore}.
 */
class PostgresFaultTest extends StoreFaultContract {

    private static final String TABLE = "inbox_fault_it";
    private static boolean schemaCreated;

    @Override
    protected InetSocketAddress server() throws SQLException {
        synchronized (PostgresFaultTest.class) {
            if (!schemaCreated) {
                try (HikariDataSource direct = PostgresTestDatabase.pool(1, true)) {
                    PostgresInboxStore.builder(direct).table(TABLE).build().createSchemaIfMissing();
                }
                schemaCreated = true;
            }
        }
        return PostgresTestDatabase.server();
    }

    @Override
    protected InboxStore createStore(String host, int port, Duration timeout) throws SQLException {
        HikariDataSource pool = closeAfterTest(PostgresTestDatabase.poolVia(host, port, timeout));
        return PostgresInboxStore.builder(pool).table(TABLE).build();
    }

    @Override
    protected SequenceGuard guardOf(InboxStore store) {
        return ((PostgresInboxStore) store).sequenceGuard();
    }
}
