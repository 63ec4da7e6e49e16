package dev.inbox.spring;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.testing.TestServers;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The real PostgreSQL the tests find ({@link TestServers#postgres()}): a pool, the inbox's table
 * and a business table ({@code inbox_spring_applied}) the listeners write to; one per test class,
 * which registers it ({@code @RegisterExtension static final Database db = new Database();}) and
 * has it closed after its tests.
 */
public final class Database implements AutoCloseable, AfterAllCallback {

    public static final String APPLIED = "inbox_spring_applied";

    public final HikariDataSource pool;
    public final PostgresInboxStore store;
    public final JdbcTemplate jdbc;
    public final DataSourceTransactionManager transactions;

    public Database() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(6);
        pool = new HikariDataSource(config);
        store = PostgresInboxStore.builder(pool)
                .table("inbox_spring")
                .sequenceTable("inbox_spring_sequence")
                .build();
        store.createSchemaIfMissing();
        jdbc = new JdbcTemplate(pool);
        // Test classes run beside each other, and two sessions' CREATE TABLE IF NOT EXISTS can both
        // miss the table and one fail on PostgreSQL's catalog: one at a time in this JVM.
        synchronized (Database.class) {
            jdbc.execute("CREATE TABLE IF NOT EXISTS " + APPLIED + " (run text, event text)");
        }
        transactions = new DataSourceTransactionManager(pool);
    }

    /** A joining inbox for a consumer of its own. */
    public SpringInbox joining(String consumer) {
        return SpringInbox.joining(Inbox.builder(store).consumer(consumer).build(), pool);
    }

    /** A lease-only inbox on the embedded store, for the tests that need no database. */
    public static SpringInbox memoryInbox() {
        return SpringInbox.leaseOnly(
                Inbox.builder(dev.inbox.caffeine.CaffeineInboxStore.builder().build())
                        .consumer("memory")
                        .build());
    }

    /**
     * An adapter-kit harness's view of this database: its connections through {@link
     * AdapterKit#dataSource} (whose commits the kit can fail) and a transaction manager on them,
     * which the container runs its transactions in and the inbox joins.
     */
    public record KitTransactions(DataSource connections, DataSourceTransactionManager manager) {}

    /** This database as {@code kit} sees it: see {@link KitTransactions}. */
    public KitTransactions forKit(AdapterKit kit) {
        DataSource connections = kit.dataSource(pool);
        return new KitTransactions(connections, new DataSourceTransactionManager(connections));
    }

    /**
     * The inbox of an adapter-kit harness: lease-only on {@code caffeine} when {@code db} is null,
     * else joining the transactions of {@code transactions}; both over the kit's faulty store, for
     * the kit's consumer.
     */
    public static SpringInbox kitInbox(
            AdapterKit kit,
            @Nullable Database db,
            @Nullable KitTransactions transactions,
            dev.inbox.caffeine.@Nullable CaffeineInboxStore caffeine) {
        if (db == null || transactions == null) {
            return SpringInbox.leaseOnly(Inbox.builder(kit.store(java.util.Objects.requireNonNull(caffeine)))
                    .consumer(kit.consumer())
                    .lease(kit.lease())
                    .build());
        }
        return SpringInbox.joining(
                Inbox.builder(kit.store(db.store))
                        .consumer(kit.consumer())
                        .lease(kit.lease())
                        .build(),
                transactions.connections());
    }

    /** A consumer name no other test uses. */
    public static String run() {
        return "t" + UUID.randomUUID().toString().replace("-", "");
    }

    /** The business write of the listeners: one row per application of {@code event}. */
    public void apply(String run, String event) {
        jdbc.update("INSERT INTO " + APPLIED + " VALUES (?, ?)", run, event);
    }

    /** How often each event of {@code run} was applied. */
    public Map<String, Long> applications(String run) {
        List<String> events = jdbc.queryForList("SELECT event FROM " + APPLIED + " WHERE run = ?", String.class, run);
        return events.stream().collect(Collectors.groupingBy(e -> e, Collectors.counting()));
    }

    /** The inbox records of {@code consumer} (any state). */
    public long records(String consumer) {
        Long count = jdbc.queryForObject("SELECT count(*) FROM inbox_spring WHERE consumer = ?", Long.class, consumer);
        return count == null ? 0 : count;
    }

    /**
     * The COMPLETED inbox records of {@code consumer} seen by another connection than the current
     * transaction's: only what is committed.
     */
    public long committedRecords(String consumer) {
        try (java.sql.Connection c = pool.getConnection();
                java.sql.PreparedStatement s =
                        c.prepareStatement("SELECT count(*) FROM inbox_spring WHERE consumer = ? AND state = 1")) {
            s.setString(1, consumer);
            try (java.sql.ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The COMPLETED inbox records of {@code consumer} as the current transaction sees them. */
    public long completedRecords(String consumer) {
        Long count = jdbc.queryForObject(
                "SELECT count(*) FROM inbox_spring WHERE consumer = ? AND state = 1", Long.class, consumer);
        return count == null ? 0 : count;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        store.close();
        pool.close();
    }
}
