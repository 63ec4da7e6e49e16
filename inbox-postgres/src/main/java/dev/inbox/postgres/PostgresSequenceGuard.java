package dev.inbox.postgres;

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
 * The PostgreSQL {@link SequenceGuard}: the last applied sequence number of each entity, one row
 * per {@code (consumer, entity)} in table {@code inbox_sequence}. Obtain it from {@link
 * PostgresInboxStore#sequenceGuard()}.
 *
 * <p>{@link #advance(InboxKey, long)} is one statement: an {@code UPDATE … WHERE last_seq = seq - 1}
 * for an entity it has seen and an {@code INSERT … ON CONFLICT DO NOTHING} for the first number,
 * so that among concurrent deliveries of one number exactly one is APPLIED. {@link
 * #advance(Connection, InboxKey, long)} runs the same statement inside the caller's transaction,
 * so the ordering check commits or rolls back with the business write.
 */
public final class PostgresSequenceGuard implements SequenceGuard {

    private final JdbcExecutor jdbc;
    private final PostgresStatements sql;
    private final int queryTimeoutSeconds;

    PostgresSequenceGuard(JdbcExecutor jdbc, PostgresStatements sql, int queryTimeoutSeconds) {
        this.jdbc = jdbc;
        this.sql = sql;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
    }

    @Override
    public SequenceResult advance(InboxKey entity, long seq) {
        SequenceGuard.validate(entity, seq);
        return jdbc.execute("advance of " + entity, connection -> advanceOn(connection, entity, seq));
    }

    /**
     * Like {@link #advance(InboxKey, long)}, inside the transaction of {@code connection}: a
     * rollback undoes the advance.
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
                .text("consumer", entity.consumer())
                .text("entity", entity.id())
                .bigint("seq", seq);
        try (PreparedStatement statement = sql.advance().prepare(connection, params)) {
            if (queryTimeoutSeconds > 0) {
                statement.setQueryTimeout(queryTimeoutSeconds);
            }
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                if (row.getLong(1) > 0) {
                    return new SequenceResult(SequenceStatus.APPLIED, seq);
                }
                long last = row.getLong(2);
                long expected = row.wasNull() ? FIRST_SEQUENCE : last + 1;
                // Not applied although the snapshot says it was next: a concurrent delivery of the
                // same number applied it after the snapshot was taken.
                return expected == seq
                        ? new SequenceResult(SequenceStatus.STALE, seq + 1)
                        : SequenceResult.decide(seq, expected);
            }
        }
    }

    /** Later calls throw {@link IllegalStateException}; the data source stays open. */
    @Override
    public void close() {
        jdbc.close();
    }
}
