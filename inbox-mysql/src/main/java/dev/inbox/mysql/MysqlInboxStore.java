package dev.inbox.mysql;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;

import com.mysql.cj.jdbc.StatementImpl;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.JdbcExecutor;
import dev.inbox.jdbc.JdbcStoreBuilder;
import dev.inbox.jdbc.Micros;
import dev.inbox.jdbc.SqlFunction;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.BatchClaims;
import dev.inbox.spi.ClaimRequest;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The MySQL 8.0+ / MariaDB 10.6+ {@link dev.inbox.spi.InboxStore} on Connector/J, in lease mode and
 * in transactional mode.
 *
 * <pre>{@code
 * MysqlInboxStore store = MysqlInboxStore.builder(dataSource).build(); // your pool
 * store.createSchemaIfMissing();
 * }</pre>
 *
 * <p><b>Record.</b> One InnoDB row per key in table {@code inbox} (configurable): {@code (consumer,
 * dedup_key)} primary key as {@code VARBINARY(512)}, {@code owner_token}, {@code state} (0
 * IN_PROGRESS, 1 COMPLETED), {@code expires_at} ({@code DATETIME(6)}, UTC) and an optional {@code
 * fingerprint}. The DDL ships in the jar as {@code dev/inbox/mysql/schema-v1.sql}.
 *
 * <p><b>Exact keys.</b> Default collations fold case and accents and PAD SPACE collations ignore
 * trailing spaces, so {@code 'order-42'}, {@code 'Order-42'} and {@code 'order-42 '} would collide,
 * and a {@code VARCHAR} too short truncates with only a warning. Keys here are {@code VARBINARY}
 * bound as UTF-8 bytes: compared byte for byte, and rejected before the insert when longer than
 * 512 bytes, so nothing is folded, padded or truncated.
 *
 * <p><b>Algorithm.</b> Every operation is one statement decided by the server:
 *
 * <ol>
 *   <li>claim: {@code INSERT … ON DUPLICATE KEY UPDATE}, whose assignments take the row only when
 *       it is past expiry + grace or is an IN_PROGRESS lease that is expired or the same owner's.
 *       The decision, with what the row held (completed, expired, fingerprint comparison), comes
 *       back in the statement's OK packet through {@code LAST_INSERT_ID(code)}: DUPLICATE and BUSY
 *       cost the same single round trip, and no {@code INSERT IGNORE} can hide an error.
 *   <li>complete: an owner-fenced {@code UPDATE} (and, only when it counted no row, a read that
 *       tells a harmless repeat from a stranger); release: an owner-fenced {@code DELETE}.
 *   <li>claimAll: one multi-row {@code INSERT … ON DUPLICATE KEY UPDATE} per chunk of {@value
 *       #BATCH_CHUNK} keys in a fixed order (so concurrent batches cannot deadlock), then one
 *       {@code SELECT} to learn which keys the batch holds; a batch does not report takeovers.
 *   <li>purge: {@code DELETE … ORDER BY expires_at LIMIT n} until a batch comes back short.
 * </ol>
 *
 * <p><b>Time.</b> Expiry is decided by the server's {@code UTC_TIMESTAMP(6)}, never by the JVM's
 * clock or the session time zone.
 *
 * <p><b>Deadlocks.</b> InnoDB may pick a claim as a deadlock victim when several transactions race
 * for one new key. A lease-mode claim runs alone in its transaction and is retried; inside the
 * caller's transaction the whole transaction was rolled back, so a deadlock surfaces as a
 * retryable {@link InboxStoreException} (SQL state 40001): retry the transaction, never read it as
 * an answer.
 */
public final class MysqlInboxStore implements TransactionalInboxStore {

    /** The most keys sent in one {@code claimAll} statement. */
    public static final int BATCH_CHUNK = 500;

    private static final int DEADLOCK_RETRIES = 5;

    private final DataSource dataSource;
    private final JdbcExecutor jdbc;
    private final MysqlStatements sql;
    private final long graceMicros;
    private final int purgeBatchSize;

    private MysqlInboxStore(DataSource dataSource, MysqlStatements sql, Duration grace, int purgeBatchSize) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcExecutor(dataSource);
        this.sql = sql;
        this.graceMicros = Micros.of(grace);
        this.purgeBatchSize = purgeBatchSize;
    }

    /**
     * Starts configuring a store on {@code dataSource}, the application's pool.
     *
     * @throws IllegalArgumentException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Creates the database (when a schema is configured), the inbox table with its purge index and
     * the sequence table, unless they exist. Idempotent.
     *
     * @throws InboxStoreException if the DDL failed
     */
    public void createSchemaIfMissing() {
        jdbc.execute("create schema for " + sql.inboxTable(), connection -> {
            try (Statement ddl = connection.createStatement()) {
                for (String statement : sql.schemaDdl()) {
                    ddl.execute(statement);
                }
            }
            return null;
        });
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        return jdbc.execute(
                "claim of " + request.key(),
                connection -> retryingDeadlocks(connection, c -> claimOn(c, request, 0, Micros.of(request.lease()))));
    }

    @Override
    public ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
        ClaimRequest request = TransactionalInboxStore.transactionalRequest(connection, key, retention, fingerprint);
        long retentionMicros = Micros.of(request.lease());
        return jdbc.executeIn(
                connection, "transactional claim of " + key, c -> claimOn(c, request, 1, retentionMicros));
    }

    private ClaimResult claimOn(Connection connection, ClaimRequest request, int state, long durationMicros)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql.claim(1))) {
            int next = bindRow(statement, 1, request, state, durationMicros);
            statement.setLong(next, graceMicros);
            statement.setLong(next + 1, graceMicros);
            statement.executeUpdate();
            // The OK packet's last insert id, not getGeneratedKeys(): Connector/J sizes the
            // generated keys by the update count, which is 0 for an unchanged row under
            // useAffectedRows=true and would hide the code.
            return decode(statement.unwrap(StatementImpl.class).getLastInsertID());
        }
    }

    /** The claim's answer from the code its statement reported (see {@link MysqlStatements}). */
    static ClaimResult decode(long code) {
        if (code == 0) {
            return ClaimResult.acquired(); // a new row
        }
        boolean completed = (code & MysqlStatements.COMPLETED) != 0;
        boolean expired = (code & MysqlStatements.EXPIRED) != 0;
        boolean gone = (code & MysqlStatements.GONE) != 0;
        boolean sameOwner = (code & MysqlStatements.SAME_OWNER) != 0;
        if ((code & MysqlStatements.TAKE) != 0) {
            return !gone && !completed && expired && !sameOwner ? ClaimResult.takenOver() : ClaimResult.acquired();
        }
        if (completed) {
            int fingerprint = (int) ((code >> MysqlStatements.FINGERPRINT_SHIFT) & 3);
            return ClaimResult.duplicate(
                    expired,
                    fingerprint == 1
                            ? FingerprintCheck.MATCH
                            : fingerprint == 2 ? FingerprintCheck.MISMATCH : FingerprintCheck.NOT_COMPARED);
        }
        return ClaimResult.busy();
    }

    private static int bindRow(PreparedStatement statement, int first, ClaimRequest request, int state, long micros)
            throws SQLException {
        statement.setBytes(first, bytes(request.key().consumer()));
        statement.setBytes(first + 1, request.key().idBytes());
        statement.setBytes(first + 2, bytes(request.owner().value()));
        statement.setInt(first + 3, state);
        statement.setLong(first + 4, micros);
        statement.setBytes(first + 5, request.fingerprint() == null ? null : bytes(request.fingerprint()));
        return first + 6;
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        jdbc.ensureOpen();
        return BatchClaims.claimAll(
                requests,
                BATCH_CHUNK,
                chunk -> jdbc.execute(
                        "claimAll of " + chunk.size() + " keys",
                        connection -> retryingDeadlocks(connection, c -> claimChunk(c, chunk))),
                this::claim);
    }

    private ClaimResult[] claimChunk(Connection connection, List<ClaimRequest> chunk) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql.claim(chunk.size()))) {
            int next = 1;
            for (ClaimRequest request : chunk) {
                next = bindRow(statement, next, request, 0, Micros.of(request.lease()));
            }
            statement.setLong(next, graceMicros);
            statement.setLong(next + 1, graceMicros);
            statement.executeUpdate();
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
        // Which keys does each owner hold now? Read back per consumer.
        Map<String, Map<String, StoredRecord>> records = new HashMap<>();
        Map<String, List<String>> idsByConsumer = new HashMap<>();
        for (ClaimRequest request : chunk) {
            InboxKey key = request.key();
            idsByConsumer
                    .computeIfAbsent(key.consumer(), c -> new ArrayList<>())
                    .add(key.id());
        }
        for (Map.Entry<String, List<String>> group : idsByConsumer.entrySet()) {
            records.put(group.getKey(), readBack(connection, group.getKey(), group.getValue()));
        }
        ClaimResult[] answers = new ClaimResult[chunk.size()];
        for (int j = 0; j < chunk.size(); j++) {
            ClaimRequest request = chunk.get(j);
            StoredRecord record =
                    records.get(request.key().consumer()).get(request.key().id());
            if (record != null
                    && !record.completed()
                    && record.owner().equals(request.owner().value())) {
                answers[j] = ClaimResult.acquired();
            } else {
                // null: released, purged or taken over meanwhile; claimAll asks again for that key
                answers[j] = record == null ? null : record.answer(false, request);
            }
        }
        return answers;
    }

    private Map<String, StoredRecord> readBack(Connection connection, String consumer, List<String> ids)
            throws SQLException {
        Map<String, StoredRecord> records = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement(sql.readBack(ids.size()))) {
            statement.setLong(1, graceMicros);
            statement.setBytes(2, bytes(consumer));
            for (int i = 0; i < ids.size(); i++) {
                statement.setBytes(3 + i, bytes(ids.get(i)));
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    byte[] fingerprint = rows.getBytes(6);
                    records.put(
                            new String(rows.getBytes(1), StandardCharsets.UTF_8),
                            new StoredRecord(
                                    new String(rows.getBytes(2), StandardCharsets.UTF_8),
                                    rows.getInt(3) == 1,
                                    rows.getBoolean(4),
                                    rows.getBoolean(5),
                                    fingerprint == null ? null : new String(fingerprint, StandardCharsets.UTF_8)));
                }
            }
        }
        return records;
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        return jdbc.execute(
                "complete of " + key,
                connection -> retryingDeadlocks(connection, c -> {
                    try (PreparedStatement statement = c.prepareStatement(sql.complete())) {
                        statement.setLong(1, retentionMicros);
                        statement.setBytes(2, bytes(key.consumer()));
                        statement.setBytes(3, key.idBytes());
                        statement.setBytes(4, bytes(owner.value()));
                        statement.setLong(5, graceMicros);
                        if (statement.executeUpdate() == 1) {
                            return true;
                        }
                    }
                    // No row counted: a stranger, or (under useAffectedRows=true) a repeat that changed nothing.
                    try (PreparedStatement statement = c.prepareStatement(sql.completedBy())) {
                        statement.setBytes(1, bytes(key.consumer()));
                        statement.setBytes(2, key.idBytes());
                        statement.setBytes(3, bytes(owner.value()));
                        statement.setLong(4, graceMicros);
                        try (ResultSet row = statement.executeQuery()) {
                            return row.next();
                        }
                    }
                }));
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        return jdbc.execute(
                "release of " + key,
                connection -> retryingDeadlocks(connection, c -> {
                    try (PreparedStatement statement = c.prepareStatement(sql.release())) {
                        statement.setBytes(1, bytes(key.consumer()));
                        statement.setBytes(2, key.idBytes());
                        statement.setBytes(3, bytes(owner.value()));
                        statement.setLong(4, graceMicros);
                        return statement.executeUpdate() == 1;
                    }
                }));
    }

    /**
     * Deletes the records past expiry + grace in batches of {@link Builder#purgeBatchSize(int)}
     * rows, oldest first, each its own short transaction, until a batch comes back short.
     */
    @Override
    public long purge() {
        return jdbc.executeInBatches(
                "purge of " + sql.inboxTable(),
                purgeBatchSize,
                connection -> retryingDeadlocks(connection, c -> {
                    try (PreparedStatement statement = c.prepareStatement(sql.purgeBatch())) {
                        statement.setLong(1, graceMicros);
                        statement.setInt(2, purgeBatchSize);
                        return statement.executeUpdate();
                    }
                }));
    }

    /**
     * A {@link MysqlSequenceGuard} on the same data source, in this store's sequence table
     * (created by {@link #createSchemaIfMissing()}).
     */
    public MysqlSequenceGuard sequenceGuard() {
        jdbc.ensureOpen();
        return new MysqlSequenceGuard(new JdbcExecutor(dataSource), sql);
    }

    /** Later operations throw {@link IllegalStateException}; the data source stays open. */
    @Override
    public void close() {
        jdbc.close();
    }

    @Override
    public String toString() {
        return "MysqlInboxStore[" + sql.inboxTable() + "]";
    }

    /**
     * Runs {@code step}, again when InnoDB chose it as a deadlock victim: on a connection of the
     * store's own, the victim's transaction held nothing but this step, so running it again is
     * what the caller would do.
     */
    static <T> T retryingDeadlocks(Connection connection, SqlFunction<T> step) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return step.apply(connection);
            } catch (SQLException e) {
                if (!isDeadlock(e) || attempt >= DEADLOCK_RETRIES) {
                    throw e;
                }
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            }
        }
    }

    static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Configures a {@link MysqlInboxStore}; each setter checks its argument at once. */
    public static final class Builder extends JdbcStoreBuilder<Builder> {

        private Builder(DataSource dataSource) {
            super(dataSource);
        }

        /** Builds the store; it does not touch the database until used. */
        public MysqlInboxStore build() {
            return new MysqlInboxStore(
                    dataSource, new MysqlStatements(schema, table, sequenceTable), grace, purgeBatchSize);
        }
    }
}
