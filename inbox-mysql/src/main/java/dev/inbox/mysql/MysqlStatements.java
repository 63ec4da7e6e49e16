package dev.inbox.mysql;

import dev.inbox.jdbc.SqlIdentifier;
import dev.inbox.jdbc.SqlScript;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every SQL statement of the MySQL/MariaDB store, built once from validated identifiers. Values
 * are always bound as parameters (keys as bytes), durations travel as microseconds and every time
 * is the server's {@code UTC_TIMESTAMP(6)}.
 *
 * <p>MySQL has no {@code RETURNING}, and what {@code executeUpdate} counts for {@code ON DUPLICATE
 * KEY UPDATE} depends on the driver's {@code useAffectedRows} setting, which belongs to the
 * caller's data source. So the claim reports its decision through {@code LAST_INSERT_ID(code)}:
 * the server returns that value in the statement's OK packet, whatever the settings. A new row
 * reports 0; a conflict reports {@link #CONFLICT} plus the bits of {@link MysqlInboxStore}'s
 * decoding, computed from the row's values before any assignment changes them; later assignments
 * of the same row read the decision back with {@code LAST_INSERT_ID()}.
 */
final class MysqlStatements {

    static final long TAKE = 1;
    static final long CONFLICT = 2;
    static final long COMPLETED = 4;
    static final long EXPIRED = 8;
    static final long GONE = 16;
    static final long SAME_OWNER = 32;
    /** Fingerprint comparison, two bits: 0 not compared, 1 match, 2 mismatch. */
    static final long FINGERPRINT_SHIFT = 6;

    /** The decision, on the row's values before the update; two grace parameters. */
    private static final String CODE = "2"
            + " + (expires_at + INTERVAL ? MICROSECOND <= UTC_TIMESTAMP(6)"
            + " OR (state = 0 AND (owner_token = VALUES(owner_token) OR expires_at <= UTC_TIMESTAMP(6))))"
            + " + 4 * (state = 1)"
            + " + 8 * (expires_at <= UTC_TIMESTAMP(6))"
            + " + 16 * (expires_at + INTERVAL ? MICROSECOND <= UTC_TIMESTAMP(6))"
            + " + 32 * (owner_token = VALUES(owner_token))"
            + " + 64 * (CASE WHEN fingerprint IS NULL OR VALUES(fingerprint) IS NULL THEN 0"
            + " WHEN fingerprint = VALUES(fingerprint) THEN 1 ELSE 2 END)";

    /** Takes the row when the code says so; keeps it untouched otherwise. */
    private static final String ON_DUPLICATE = " ON DUPLICATE KEY UPDATE"
            + " owner_token = IF(LAST_INSERT_ID(" + CODE + ") & 1, VALUES(owner_token), owner_token),"
            + " fingerprint = IF(LAST_INSERT_ID() & 1,"
            + " IF(LAST_INSERT_ID() & 32 AND VALUES(fingerprint) IS NULL, fingerprint, VALUES(fingerprint)),"
            + " fingerprint),"
            + " state = IF(LAST_INSERT_ID() & 1, VALUES(state), state),"
            + " expires_at = IF(LAST_INSERT_ID() & 1, VALUES(expires_at), expires_at)";

    /**
     * One row to insert. {@code LAST_INSERT_ID(0)} runs before the duplicate check, so a new row
     * reports 0 even though the connection still holds the code of an earlier conflict (MySQL
     * reports that held value for any statement that calls {@code LAST_INSERT_ID(expr)}).
     */
    private static final String ROW = "(?, ?, ?, ? + LAST_INSERT_ID(0), UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, ?)";

    private final String inbox;
    private final String sequences;
    private final String expiresIndex;
    private final @Nullable String schema;

    MysqlStatements(@Nullable SqlIdentifier schema, SqlIdentifier table, SqlIdentifier sequenceTable) {
        String prefix = schema == null ? "" : schema.quoted('`') + ".";
        this.schema = schema == null ? null : schema.quoted('`');
        this.inbox = prefix + table.quoted('`');
        this.sequences = prefix + sequenceTable.quoted('`');
        String index = table.name() + "_expires_at";
        this.expiresIndex = '`' + (index.length() > 64 ? index.substring(0, 64) : index) + '`';
    }

    String inboxTable() {
        return inbox;
    }

    /**
     * Claims {@code rows} keys. Parameters per row: consumer, key, owner, state (0 lease, 1
     * transactional), duration µs, fingerprint; then grace µs twice. The OK packet's last insert
     * id is the decision of the last row (0 for a new one).
     */
    String claim(int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO ")
                .append(inbox)
                .append(" (consumer, dedup_key, owner_token, state, expires_at, fingerprint) VALUES ")
                .append(ROW);
        for (int i = 1; i < rows; i++) {
            sql.append(", ").append(ROW);
        }
        return sql.append(ON_DUPLICATE).toString();
    }

    /**
     * Reads back the records of {@code rows} keys of one consumer after a batch. Parameters: grace
     * µs, consumer, then each key.
     */
    String readBack(int rows) {
        StringBuilder sql = new StringBuilder("SELECT dedup_key, owner_token, state,"
                        + " expires_at <= UTC_TIMESTAMP(6), expires_at + INTERVAL ? MICROSECOND <= UTC_TIMESTAMP(6),"
                        + " fingerprint FROM ")
                .append(inbox)
                .append(" WHERE consumer = ? AND dedup_key IN (?");
        for (int i = 1; i < rows; i++) {
            sql.append(", ?");
        }
        return sql.append(')').toString();
    }

    /**
     * IN_PROGRESS → COMPLETED for the owner, keeping the first retention on a repeat. Parameters:
     * retention µs, consumer, key, owner, grace µs. Counts one row when it completed the record;
     * a repeat counts one or none depending on the driver's {@code useAffectedRows}, which {@link
     * #completedBy()} then settles.
     */
    String complete() {
        return "UPDATE " + inbox + " SET expires_at = IF(state = 0,"
                + " UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, expires_at), state = 1"
                + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ?"
                + " AND expires_at + INTERVAL ? MICROSECOND > UTC_TIMESTAMP(6)";
    }

    /**
     * Whether the owner's record is COMPLETED and not past grace: after an update that counted no
     * row, this tells a harmless repeat from a stranger. Parameters: consumer, key, owner, grace µs.
     */
    String completedBy() {
        return "SELECT 1 FROM " + inbox + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ? AND state = 1"
                + " AND expires_at + INTERVAL ? MICROSECOND > UTC_TIMESTAMP(6)";
    }

    /** Deletes the owner's IN_PROGRESS record. Parameters: consumer, key, owner, grace µs. */
    String release() {
        return "DELETE FROM " + inbox + " WHERE consumer = ? AND dedup_key = ? AND owner_token = ? AND state = 0"
                + " AND expires_at + INTERVAL ? MICROSECOND > UTC_TIMESTAMP(6)";
    }

    /** Deletes one batch of records past expiry + grace, oldest first. Parameters: grace µs, limit. */
    String purgeBatch() {
        return "DELETE FROM " + inbox + " WHERE expires_at <= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND"
                + " ORDER BY expires_at LIMIT ?";
    }

    /**
     * The first number of an entity: inserts it, or on conflict leaves the row as it is and reports
     * last_seq + 1 (the expected number) as the last insert id. Parameters: consumer, entity.
     */
    String advanceFirst() {
        return "INSERT INTO " + sequences + " (consumer, entity, last_seq) VALUES (?, ?, 1 + LAST_INSERT_ID(0))"
                + " ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1) - 1";
    }

    /** Advances an entity from seq - 1 to seq. Parameters: seq, consumer, entity, seq. */
    String advanceNext() {
        return "UPDATE " + sequences + " SET last_seq = ? WHERE consumer = ? AND entity = ? AND last_seq = ? - 1";
    }

    /** The last applied number of an entity. Parameters: consumer, entity. */
    String lastApplied() {
        return "SELECT last_seq FROM " + sequences + " WHERE consumer = ? AND entity = ?";
    }

    /** The DDL of {@code schema-v1.sql}, names filled in. */
    List<String> schemaDdl() {
        List<String> ddl = new java.util.ArrayList<>();
        if (schema != null) {
            ddl.add("CREATE DATABASE IF NOT EXISTS " + schema);
        }
        ddl.addAll(SqlScript.load(
                MysqlStatements.class,
                "schema-v1.sql",
                Map.of("inbox_expires_index", expiresIndex, "inbox", inbox, "sequences", sequences)));
        return ddl;
    }
}
