package dev.inbox.mysql;

import dev.inbox.InboxKey;
import dev.inbox.jdbc.NamedSql;
import dev.inbox.jdbc.SqlParams;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the MySQL store and its sequence guard write and read values: text as UTF-8 bytes in {@code
 * VARBINARY} columns, records read back as {@link StoredRecord}s, and the claim statement's code
 * turned into an answer by the one claim decision.
 */
final class MysqlCodec {

    private MysqlCodec() {}

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte @Nullable [] bytesOrNull(@Nullable String text) {
        return text == null ? null : bytes(text);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The key and the owner as parameters {@code :consumer}, {@code :key}, {@code :owner}. */
    static SqlParams keyAndOwner(InboxKey key, OwnerToken owner) {
        return SqlParams.create()
                .bytes("consumer", bytes(key.consumer()))
                .bytes("key", key.idBytes())
                .bytes("owner", bytes(owner.value()));
    }

    /**
     * Prepares {@code sql} with its parameters bound, so that {@link #lastInsertId(Statement)} can
     * read what it reports: with {@link Statement#RETURN_GENERATED_KEYS}, without which MariaDB
     * Connector/J keeps no insert id (MySQL Connector/J keeps it anyway).
     */
    static PreparedStatement prepareReporting(NamedSql sql, Connection connection, SqlParams params)
            throws SQLException {
        return sql.prepare(connection, params, Statement.RETURN_GENERATED_KEYS);
    }

    /**
     * The value the last statement (prepared by {@link #prepareReporting}) reported through {@code
     * LAST_INSERT_ID(expr)}, from its OK packet: 0 when it set none. On MySQL Connector/J it is read
     * from the driver's statement — not through {@code getGeneratedKeys()}, which Connector/J sizes
     * by the update count, 0 for an unchanged row under {@code useAffectedRows=true} (a setting of
     * the caller's data source), and would hide the code. On any other driver (MariaDB Connector/J)
     * it is the first generated key, which that driver takes from the OK packet. Never a {@code
     * SELECT LAST_INSERT_ID()}: that would cost a second round trip per claim.
     */
    static long lastInsertId(Statement statement) throws SQLException {
        if (ConnectorJ.PRESENT && ConnectorJ.drives(statement)) {
            return ConnectorJ.lastInsertId(statement);
        }
        try (ResultSet keys = statement.getGeneratedKeys()) {
            return keys.next() ? keys.getLong(1) : 0;
        }
    }

    /**
     * MySQL Connector/J's own statement, touched only when that driver is on the class path: a
     * MariaDB user may leave it out.
     */
    private static final class ConnectorJ {

        static final boolean PRESENT = present();

        private ConnectorJ() {}

        private static boolean present() {
            try {
                Class.forName("com.mysql.cj.jdbc.StatementImpl", false, MysqlCodec.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException e) {
                return false;
            }
        }

        static boolean drives(Statement statement) throws SQLException {
            return statement.isWrapperFor(com.mysql.cj.jdbc.StatementImpl.class);
        }

        static long lastInsertId(Statement statement) throws SQLException {
            return statement.unwrap(com.mysql.cj.jdbc.StatementImpl.class).getLastInsertID();
        }
    }

    /**
     * The claim's answer from the code its statement reported (see {@link MysqlStatements}), or
     * null when the row may be taken over ({@link MysqlStatements#take()}).
     */
    static @Nullable ClaimResult decode(long code) {
        if (code == 0) {
            return ClaimResult.acquired(); // a new row
        }
        ClaimResult answer = decide(code, false);
        return answer == null ? null : answer.withPastRetention(Duration.of(pastExpiryMicros(code), ChronoUnit.MICROS));
    }

    /** The answer of a claim that took the row whose code {@link #decode(long)} read as takeable. */
    static ClaimResult taken(long code) {
        return Objects.requireNonNull(decide(code, true), "a taken row always has an answer");
    }

    private static @Nullable ClaimResult decide(long code, boolean taken) {
        return StoredRecord.decide(
                taken,
                (code & MysqlStatements.COMPLETED) != 0,
                pastExpiryMicros(code) >= 0,
                (code & MysqlStatements.GONE) != 0,
                (code & MysqlStatements.SAME_OWNER) != 0,
                FingerprintCheck.fromCode((code >> MysqlStatements.FINGERPRINT_SHIFT) & 3));
    }

    private static long pastExpiryMicros(long code) {
        return (code >>> MysqlStatements.PAST_EXPIRY_SHIFT) - MysqlStatements.PAST_EXPIRY_OFFSET;
    }

    /** A record read back by {@link MysqlStatements#readBack(int)}, from its second column on. */
    static StoredRecord record(ResultSet row) throws SQLException {
        byte[] fingerprint = row.getBytes(6);
        return new StoredRecord(
                text(row.getBytes(2)),
                row.getInt(3) == 1,
                row.getBoolean(4),
                row.getBoolean(5),
                fingerprint == null ? null : text(fingerprint),
                row.getBytes(7),
                Duration.of(row.getLong(8), ChronoUnit.MICROS));
    }
}
