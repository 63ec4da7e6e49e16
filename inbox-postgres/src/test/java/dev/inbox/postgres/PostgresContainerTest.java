package dev.inbox.postgres;

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
 * The kit against a PostgreSQL server that Testcontainers started (image {@code postgres:16}, or
 * {@code INBOX_TEST_POSTGRES_IMAGE}), whatever else answers on this machine. Runs in the {@code
 * containers} profile: {@code ./mvnw verify -Pcontainers} on a machine with Docker.
 */
@Tag("containers")
class PostgresContainerTest {

    static HikariDataSource pool;

    @BeforeAll
    static void startContainer() {
        pool = PostgresTestDatabase.pool(TestServers.postgresContainer(), 12, true);
        store(Duration.ofMinutes(10), "inbox").createSchemaIfMissing();
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    static PostgresInboxStore store(Duration grace, String table) {
        return PostgresInboxStore.builder(pool)
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
            PostgresInboxStore store = store(grace, "inbox_purge");
            store.createSchemaIfMissing();
            try (Connection c = pool.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("TRUNCATE inbox_purge");
            }
            return store;
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((PostgresInboxStore) store).createSchemaIfMissing();
        }
    }

    @Nested
    class TransactionalKit extends TransactionalStoreContract {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) {
            return store(grace, "inbox");
        }

        @Override
        protected Duration lockWaitBound() {
            return Duration.ofSeconds(PostgresInboxStore.DEFAULT_LOCK_WAIT_SECONDS); // the default, unset
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
