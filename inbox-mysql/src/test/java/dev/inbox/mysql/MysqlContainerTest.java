package dev.inbox.mysql;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.SequenceGuard;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.tck.TransactionalStoreContract;
import dev.inbox.testing.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The kit against a MariaDB or MySQL server that Testcontainers started (image {@code mariadb:11},
 * or {@code INBOX_TEST_MYSQL_IMAGE}: a MySQL image is untested here), whatever else answers on this
 * machine. Runs in the {@code containers} profile: {@code ./mvnw verify -Pcontainers} on a machine
 * with Docker.
 */
@Tag("containers")
class MysqlContainerTest {

    static HikariDataSource pool;

    @BeforeAll
    static void startContainer() {
        pool = MysqlTestDatabase.pool(TestServers.mysqlContainer(), 12, true);
        store(Duration.ofMinutes(10), "inbox").createSchemaIfMissing();
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    static MysqlInboxStore store(Duration grace, String table) {
        return MysqlInboxStore.builder(pool)
                .table(table)
                .sequenceTable(table + "_sequence")
                .grace(grace)
                .build();
    }

    @Nested
    class LeaseKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return store(grace, "inbox");
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            MysqlInboxStore store = store(grace, "inbox_purge");
            store.createSchemaIfMissing();
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DELETE FROM inbox_purge");
            }
            return store;
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((MysqlInboxStore) store).createSchemaIfMissing();
        }
    }

    @Nested
    class TransactionalKit extends TransactionalStoreContract {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) {
            return MysqlInboxStore.builder(pool)
                    .table("inbox")
                    .sequenceTable("inbox_sequence")
                    .grace(grace)
                    .lockWaitTimeout(lockWaitBound())
                    .build();
        }

        @Override
        protected Duration lockWaitBound() {
            return Duration.ofSeconds(2);
        }

        @Override
        protected DataSource dataSource() {
            return pool;
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return store(Duration.ofMinutes(10), "inbox").sequenceGuard();
        }
    }
}
