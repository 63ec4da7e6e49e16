package dev.inbox.benchmarks.storm;

import dev.inbox.InboxStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Counts one run's records in a SQL store's table (as the store names it), for soak samples. */
final class SqlRecords {

    private SqlRecords() {}

    static long count(DataSource dataSource, String table, String consumer) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE consumer = ?")) {
            s.setString(1, consumer);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new InboxStoreException("counting the run's records failed: " + e.getMessage(), e, true);
        }
    }
}
