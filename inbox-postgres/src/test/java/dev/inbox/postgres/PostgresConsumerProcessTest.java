package dev.inbox.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.tck.ConsumerProcessContract;
import dev.inbox.tck.TransactionalStoreFactory;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;

/** E6 with real consumer processes killed and frozen inside their transaction. */
class PostgresConsumerProcessTest extends ConsumerProcessContract {

    private static final Duration LOCK_WAIT = Duration.ofSeconds(1);

    private static HikariDataSource pool;

    /** Builds the store in the consumer process, as {@link #store(DataSource)} does here. */
    public static final class Factory implements TransactionalStoreFactory {
        @Override
        public TransactionalInboxStore create(String jdbcUrl) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(jdbcUrl);
            return store(dataSource);
        }
    }

    static PostgresInboxStore store(DataSource dataSource) {
        return PostgresInboxStore.builder(dataSource)
                .table("inbox_process")
                .sequenceTable("inbox_process_sequence")
                .lockWaitTimeout(LOCK_WAIT)
                .build();
    }

    @BeforeAll
    static void createSchema() {
        pool = PostgresTestDatabase.pool(4, true);
        store(pool).createSchemaIfMissing();
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    protected Class<? extends TransactionalStoreFactory> storeFactory() {
        return Factory.class;
    }

    @Override
    protected String jdbcUrl() {
        return PostgresTestDatabase.url();
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }

    @Override
    protected TransactionalInboxStore createStore() {
        return store(pool);
    }

    @Override
    protected Duration lockWaitBound() {
        return LOCK_WAIT;
    }
}
