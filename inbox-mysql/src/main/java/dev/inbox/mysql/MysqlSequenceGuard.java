package dev.inbox.mysql;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceResult;
import dev.inbox.SequenceStatus;
import dev.inbox.jdbc.JdbcExecutor;
import dev.inbox.jdbc.SqlParams;
import dev.inbox.spi.InboxArguments;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The MySQL/MariaDB {@link SequenceGuard}: the last applied sequence number of each entity, one
 * row per {@code (consumer, entity)} in table {@code inbox_sequence}. Obtain it from {@link
 * MysqlInboxStore#sequenceGuard()}.
 *
 * <p>The first number is an {@code INSERT … ON DUPLICATE KEY UPDATE} that changes nothing on
 * conflict and reports the expected number through {@code LAST_INSERT_ID}; a later number is an
 * {@code UPDATE … WHERE last_seq = seq - 1}. Either way the server decides under the row lock, so
 * among concurrent deliveries of one number exactly one is APPLIED. When an update matched
 * nothing, the row is read to tell STALE from GAP. {@link #advance(Connection, InboxKey, long)}
 * runs inside the caller's transaction.
 */
public final class MysqlSequenceGuard implements SequenceGuard {

    private final JdbcExecutor jdbc;
    private final MysqlStatements sql;

    MysqlSequenceGuard(JdbcExecutor jdbc, MysqlStatements sql) {
        this.jdbc = jdbc;
        this.sql = sql;
    }

    @Override
    public SequenceResult advance(InboxKey entity, long seq) {
        SequenceGuard.validate(entity, seq);
        return jdbc.execute(
                "advance of " + entity,
                connection -> MysqlDeadlocks.retrying(connection, c -> advanceOn(c, entity, seq)));
    }

    /**
     * Like {@link #advance(InboxKey, long)}, inside the transaction of {@code connection}.
     *
     * @throws IllegalArgumentException if an argument is invalid or {@code connection} is in
     *     auto-commit mode
     */
    public SequenceResult advance(Connection connection, InboxKey entity, long seq) {
        InboxArguments.requireNonNull(connection, "connection");
        SequenceGuard.validate(entity, seq);
        return jdbc.executeIn(connection, "transactional advance of " + entity, c -> advanceOn(c, entity, seq));
    }

    private SequenceResult advanceOn(Connection connection, InboxKey entity, long seq) throws SQLException {
        SqlParams params = SqlParams.create()
                .bytes("consumer", MysqlCodec.bytes(entity.consumer()))
                .bytes("entity", entity.idBytes())
                .bigint("seq", seq);
        if (seq == FIRST_SEQUENCE) {
            try (PreparedStatement statement = MysqlCodec.prepareReporting(sql.advanceFirst(), connection, params)) {
                statement.executeUpdate();
                long expected = MysqlCodec.lastInsertId(statement);
                return expected == 0
                        ? new SequenceResult(SequenceStatus.APPLIED, seq)
                        : SequenceResult.decide(seq, expected);
            }
        }
        while (true) {
            try (PreparedStatement statement = sql.advanceNext().prepare(connection, params)) {
                if (statement.executeUpdate() == 1) {
                    return new SequenceResult(SequenceStatus.APPLIED, seq);
                }
            }
            try (PreparedStatement statement = sql.lastApplied().prepare(connection, params);
                    ResultSet row = statement.executeQuery()) {
                long expected = row.next() ? row.getLong(1) + 1 : FIRST_SEQUENCE;
                if (expected != seq) {
                    return SequenceResult.decide(seq, expected);
                }
                // The entity reached seq - 1 between the update and the read: try again.
            }
        }
    }

    /** Later calls throw {@link IllegalStateException}; the data source stays open. */
    @Override
    public void close() {
        jdbc.close();
    }
}
