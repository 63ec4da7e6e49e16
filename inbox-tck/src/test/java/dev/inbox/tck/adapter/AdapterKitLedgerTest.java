package dev.inbox.tck.adapter;

import dev.inbox.testing.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Kit classes that run in parallel start their kits together on one database: each must find or
 * create the ledger table, although PostgreSQL's {@code CREATE TABLE IF NOT EXISTS} lets all but
 * one of a race fail (seen in CI: {@code duplicate key value violates unique constraint
 * "pg_type_typname_nsp_index"}).
 */
class AdapterKitLedgerTest {

    private static final int KITS = 8;
    private static final int ROUNDS = 5;

    @Test
    void kitsStartingTogetherOnAFreshDatabase_eachFindOrCreateTheLedger() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(KITS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String schema = "inbox_kit_race_" + UUID.randomUUID().toString().replace("-", "");
                execute("CREATE SCHEMA " + schema);
                try {
                    PGSimpleDataSource ledger = new PGSimpleDataSource();
                    ledger.setURL(TestServers.postgres());
                    ledger.setCurrentSchema(schema);
                    CyclicBarrier start = new CyclicBarrier(KITS);
                    List<Future<?>> kits = new ArrayList<>();
                    for (int i = 0; i < KITS; i++) {
                        kits.add(threads.submit(() -> {
                            start.await(30, TimeUnit.SECONDS);
                            new AdapterKit(Duration.ofSeconds(2), Duration.ofMillis(100), ledger).close();
                            return null;
                        }));
                    }
                    for (Future<?> kit : kits) {
                        kit.get(60, TimeUnit.SECONDS); // throws what a kit's start threw
                    }
                } finally {
                    execute("DROP SCHEMA " + schema + " CASCADE");
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(TestServers.postgres());
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
