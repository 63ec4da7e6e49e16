package dev.inbox.sqs;

import dev.inbox.tck.adapter.AdapterContract;
import dev.inbox.testing.PostgresPool;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The adapter kit on a transactional SQS loop into the real PostgreSQL: the pool the ledger shares. */
abstract class PostgresSqsKit extends AdapterContract {

    @RegisterExtension
    static final PostgresPool db = new PostgresPool(6);

    @Override
    protected DataSource ledgerDataSource() {
        return db.pool();
    }
}
