package dev.inbox.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.SequenceGuard;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.StoreFaultContract;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Rules E3–E5 against the real server through the kit's fault proxy, with the setup users run: a
 * HikariCP pool with connect and socket timeouts, in front of {@link MysqlInboxStore}.
 */
class MysqlFaultTest extends StoreFaultContract {

    private static final String TABLE = "inbox_fault_it";
    private static boolean schemaCreated;

    @Override
    protected InetSocketAddress server() {
        synchronized (MysqlFaultTest.class) {
            if (!schemaCreated) {
                try (HikariDataSource direct = MysqlTestDatabase.pool(1, true)) {
                    MysqlInboxStore.builder(direct).table(TABLE).build().createSchemaIfMissing();
                }
                schemaCreated = true;
            }
        }
        return MysqlTestDatabase.server();
    }

    @Override
    protected InboxStore createStore(String host, int port, Duration timeout) {
        HikariDataSource pool = closeAfterTest(MysqlTestDatabase.poolVia(host, port, timeout));
        return MysqlInboxStore.builder(pool).table(TABLE).build();
    }

    @Override
    protected SequenceGuard guardOf(InboxStore store) {
        return ((MysqlInboxStore) store).sequenceGuard();
    }
}
