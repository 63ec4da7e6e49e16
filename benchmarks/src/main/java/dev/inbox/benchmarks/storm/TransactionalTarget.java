package dev.inbox.benchmarks.storm;

import dev.inbox.InboxKey;
import dev.inbox.InboxMetrics;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Transactional mode on a SQL store: the claim and the ledger row commit in one transaction. A
 * crash is a transaction that dies before its commit (the database rolls it back), so no crash,
 * before or after the work, can leave an effect without its record.
 */
final class TransactionalTarget implements StormTarget {

    static final String LEDGER = "inbox_storm_ledger";

    private final String name;
    private final TransactionalInboxStore store;
    private final DataSource dataSource;
    private final String table;
    private final String consumer;
    private final Duration retention;
    private final InboxMetrics metrics;
    private final TransactionalInbox inbox;
    private final boolean batches;

    TransactionalTarget(
            String name,
            TransactionalInboxStore store,
            String table,
            DataSource dataSource,
            String consumer,
            StormConfig config,
            InboxMetrics metrics)
            throws SQLException {
        this.name = name;
        this.store = store;
        this.dataSource = dataSource;
        this.table = table;
        this.consumer = consumer;
        this.retention = config.retention();
        this.metrics = metrics;
        this.batches = config.mode().equals(StormConfig.TRANSACTIONAL_BATCH);
        this.inbox = TransactionalInbox.builder(store, dataSource)
                .consumer(consumer)
                .retention(config.retention())
                .metrics(metrics)
                .build();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            try {
                s.execute("CREATE TABLE IF NOT EXISTS " + LEDGER + " (run VARCHAR(100) NOT NULL, event INT NOT NULL)");
            } catch (SQLException e) {
                // Two storms starting at once on a new PostgreSQL database: the other one created it
                // (CREATE TABLE IF NOT EXISTS is not safe against a concurrent one there).
                if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
                    throw e;
                }
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    @Override
    public String describe() {
        return name
                + (batches
                        ? " (transactional mode, one transaction per poll, receive or window)"
                        : " (transactional mode)");
    }

    /** True for --mode transactional-batch: the broker's loop applies a poll, a receive or a window of deliveries in one transaction. */
    boolean batches() {
        return batches;
    }

    @Override
    public boolean closesCrashWindow() {
        return true;
    }

    @Override
    public Outcome deliver(int event, String id, Fault fault) throws SQLException {
        if (fault == Fault.CRASH_BEFORE_WORK || fault == Fault.CRASH_AFTER_WORK) {
            return crash(event, id, fault == Fault.CRASH_AFTER_WORK);
        }
        try {
            return switch (inbox.handle(id, connection -> {
                        if (fault == Fault.FAIL_WORK) {
                            throw new SimulatedFailure();
                        }
                        record(connection, event);
                    })
                    .outcome()) {
                case PROCESSED -> Outcome.PROCESSED;
                case DUPLICATE -> Outcome.DUPLICATE;
                case BUSY -> Outcome.BUSY;
            };
        } catch (SimulatedFailure e) {
            return Outcome.FAILED;
        }
    }

    /** Claims and (maybe) works, then dies before the commit: the database rolls both back. */
    private Outcome crash(int event, String id, boolean afterWork) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                long start = System.nanoTime();
                ClaimResult claim = store.claimInTransaction(connection, InboxKey.of(consumer, id), retention, null);
                metrics.claimed(consumer, claim, System.nanoTime() - start);
                if (!claim.isAcquired()) {
                    return claim.status() == dev.inbox.spi.ClaimStatus.DUPLICATE ? Outcome.DUPLICATE : Outcome.BUSY;
                }
                if (afterWork) {
                    record(connection, event);
                }
                return Outcome.CRASHED;
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /** The inbox the broker adapters run deliveries through. */
    TransactionalInbox inbox() {
        return inbox;
    }

    /** Writes {@code event}'s ledger row on {@code connection}, in the caller's transaction. */
    void record(Connection connection, int event) throws SQLException {
        try (PreparedStatement s =
                connection.prepareStatement("INSERT INTO " + LEDGER + " (run, event) VALUES (?, ?)")) {
            s.setString(1, consumer);
            s.setInt(2, event);
            s.executeUpdate();
        }
    }

    @Override
    public long purge() {
        return store.purge();
    }

    @Override
    public long storedRecords() {
        return SqlRecords.count(dataSource, table, consumer);
    }

    @Override
    public int[] appliedCounts(int events) throws SQLException {
        int[] counts = new int[events];
        try (Connection c = dataSource.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT event, count(*) FROM " + LEDGER + " WHERE run = ? GROUP BY event")) {
            s.setString(1, consumer);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    counts[rows.getInt(1)] = rows.getInt(2);
                }
            }
        }
        return counts;
    }

    @Override
    public void close() {
        store.close();
    }
}
