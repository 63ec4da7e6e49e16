package dev.inbox.sqs;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.testing.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The adapter kit on a transactional SQS loop into the real PostgreSQL: the pool the ledger shares. */
abstract class PostgresSqsKit extends AdapterContract {

    static HikariDataSource pool;

    @BeforeAll
    static void database() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(6);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void closeDatabase() {
        pool.close();
    }

    @Override
    protected DataSource ledgerDataSource() {
        return pool;
    }
}
