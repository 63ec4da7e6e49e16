package dev.inbox.tck;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/** The transactional rules' business table: one row per applied event, in the store's database. */
final class BusinessTable {

    /** The table's name. */
    static final String NAME = "inbox_tck_business";

    private static final Duration RETENTION = Duration.ofMinutes(10);

    private BusinessTable() {}

    /** Creates the table unless it exists, with portable SQL. */
    static void create(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + NAME + " (id VARCHAR(200) PRIMARY KEY)");
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    static void insert(Connection c, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + NAME + " (id) VALUES (?)")) {
            s.setString(1, id);
            s.executeUpdate();
        }
    }

    /** The rows whose id is LIKE {@code pattern}. */
    static int count(DataSource dataSource, String pattern) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM " + NAME + " WHERE id LIKE ?")) {
            s.setString(1, pattern);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /**
     * Claims {@code key} in a transaction of its own, writes the row {@code key.consumer()/key.id()/delivery}
     * when acquired and commits; returns the claim's answer, or the {@link InboxStoreException} it ended with
     * (after rolling back).
     */
    static Object claimAndApply(TransactionalInboxStore store, DataSource dataSource, InboxKey key, String delivery) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                ClaimResult result = store.claimInTransaction(c, key, RETENTION, null);
                if (result.isAcquired()) {
                    insert(c, key.consumer() + "/" + key.id() + "/" + delivery);
                }
                c.commit();
                return result;
            } catch (InboxStoreException e) {
                c.rollback();
                return e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
