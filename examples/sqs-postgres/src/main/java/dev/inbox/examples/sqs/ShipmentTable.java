package dev.inbox.examples.sqs;

import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.postgres.PostgresInboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * What both forms of the example share: the inbox in PostgreSQL, and the table each shipment is
 * recorded in — in the claim's transaction, so the row and the claim commit together or not at all.
 */
final class ShipmentTable {

    private ShipmentTable() {}

    /**
     * The transactional inbox of {@code consumer} on {@code dataSource}: creates the inbox table and
     * the shipments table {@code table} when they are missing.
     */
    static TransactionalInbox inbox(DataSource dataSource, String consumer, String table) throws SQLException {
        PostgresInboxStore store = PostgresInboxStore.builder(dataSource).build();
        store.createSchemaIfMissing(); // the inbox table, once
        try (Connection c = dataSource.getConnection();
                Statement create = c.createStatement()) {
            // No unique key on purpose: a shipment recorded twice would show as two rows.
            create.execute("CREATE TABLE IF NOT EXISTS " + table + " (shipment text NOT NULL)");
        }
        return TransactionalInbox.builder(store, dataSource).consumer(consumer).build();
    }

    /** Records one shipment on the claim's connection (never commit or close it). */
    static void record(Connection connection, String table, String shipment) throws SQLException {
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + table + " (shipment) VALUES (?)")) {
            insert.setString(1, shipment);
            insert.executeUpdate();
        }
    }
}
