package dev.inbox.mysql;

import static dev.inbox.spi.InboxArguments.requireNonNull;
import static dev.inbox.spi.InboxArguments.requirePositive;
import static dev.inbox.spi.InboxArguments.requireResult;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.JdbcExecutor;
import dev.inbox.jdbc.JdbcInboxAdmin;
import dev.inbox.jdbc.JdbcStoreBuilder;
import dev.inbox.jdbc.Micros;
import dev.inbox.jdbc.NamedSql;
import dev.inbox.jdbc.PurgePacing;
import dev.inbox.jdbc.SqlParams;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.BatchClaims;
import dev.inbox.spi.BatchCompletions;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimShape;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.HeldKey;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.StoredRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * IN_PROGRESS, 1 COMPLETED), {@code expires_at} ({@code DATETIME(6)}, UTC), {@code purge_after}
 * (expiry + the writer's grace), an optional {@code fingerprint} and an optional {@code result}
 * ({@code MEDIUMBLOB}: the handler's result a COMPLETED record keeps). The DDL ships in the jar as
 * {@code dev/inbox/mysql/schema-v3.sql}; {@link #createSchemaIfMissing()} upgrades a version 1 or
 * 2 table in place.
 *
 * <p><b>Exact keys.</b> Default collations fold case and accents and PAD SPACE collations ignore
 * trailing spaces, so {@code 'order-42'}, {@code 'Order-42'} and {@code 'order-42 '} would collide,
 * and a {@code VARCHAR} too short truncates with only a warning. Keys here are {@code VARBINARY}
 * bound as UTF-8 bytes: compared byte for byte, and rejected before the insert when longer than
 * 512 bytes, so nothing is folded, padded or truncated.
 *
 * <p><b>Algorithm.</b> Every operation is decided by the server, in one statement unless said:
 *
 * <ol>
 *   <li>claim: {@code INSERT … ON DUPLICATE KEY UPDATE} that changes no existing row: what the
 *       row holds (completed, past grace, owner, fingerprint comparison, result, time past expiry)
 *       comes back in the statement's OK packet through {@code LAST_INSERT_ID(code)}; no {@code
 *       INSERT IGNORE} can hide an error. While most keys are new, a claim starts with the same
 *       insert without the code in its text (MySQL parses the whole text even for a new row), and
 *       only a key that was there goes on to the full statement; while more than about one claim
 *       in five finds its key there, claims start with the full statement ({@link ClaimShape}).
 *       So a new key costs one round trip, and DUPLICATE and BUSY one while they are common, two
 *       while they are rare. A row that may be taken over (past expiry + grace, or an IN_PROGRESS
 *       lease that is expired or the same owner's) costs a second statement, an {@code UPDATE}
 *       conditioned on exactly that, which decides under the row lock (if the row changed
 *       meanwhile, the claim starts again); a DUPLICATE whose record keeps a result costs a
 *       locking read of it.
 *   <li>complete: an owner-fenced {@code UPDATE} (and, only when it counted no row, a read that
 *       tells a harmless repeat from a stranger); release: an owner-fenced {@code DELETE}.
 *   <li>claimAll: one multi-row {@code INSERT … ON DUPLICATE KEY UPDATE} per chunk of {@value
 *       #BATCH_CHUNK} keys in a fixed order (so concurrent batches cannot deadlock), counting its
 *       conflicts in {@code LAST_INSERT_ID}; only when there were any, one {@code SELECT} learns
 *       which keys the batch holds, and keys that may be taken over are claimed alone.
 *   <li>purge: {@code DELETE … ORDER BY purge_after LIMIT n} until a batch comes back short.
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
 *
 * <p><b>A consumer that hangs inside its transaction</b> holds the row lock while its transaction
 * stays open. A transactional claim behind it waits at most the server's {@code
 * innodb_lock_wait_timeout} (50 s out of the box), or {@link Builder#lockWaitTimeout(Duration)} when
 * set, and then fails with a retryable {@link InboxStoreException} (error 1205): roll back and let
 * the broker redeliver. The setting applies to the claim alone — MariaDB's {@code SET STATEMENT …
 * FOR}, or on MySQL the session value set before the claim and restored after it (two more round
 * trips). A consumer that dies releases the lock as soon as the server sees its connection close.
 */
public final class MysqlInboxStore implements TransactionalInboxStore {

    /** The most keys sent in one {@code claimAll} statement. */
    public static final int BATCH_CHUNK = 500;

    /** The longest result {@link #complete(InboxKey, OwnerToken, Duration, byte[])} keeps: 1 MiB. */
    public static final int MAX_RESULT_BYTES = 1 << 20;

    /** How often a claim tries before it gives up on a record that keeps changing under it. */
    private static final int MAX_ATTEMPTS = 8;

    /** InnoDB's largest {@code innodb_lock_wait_timeout}, in seconds. */
    private static final int MAX_LOCK_WAIT_SECONDS = 1_073_741_824;

    private final DataSource dataSource;
    private final JdbcExecutor jdbc;
    private final MysqlStatements sql;
    private final long graceMicros;
    private final int purgeBatchSize;
    private final PurgePacing purgePacing;
    /** The claim's {@code innodb_lock_wait_timeout} in seconds; 0 keeps the server's. */
    private final int lockWaitSeconds;

    private final @Nullable NamedSql mariadbBoundedClaim;
    private final @Nullable NamedSql mariadbBoundedClaimNew;
    /** Whether claims start with {@link MysqlStatements#claimNew()} (most keys new) or go straight to the full claim. */
    private final ClaimShape shape = new ClaimShape();
    /** Whether the server takes MariaDB's {@code SET STATEMENT}; null until a bounded claim asks. */
    private volatile @Nullable Boolean mariadb;

    private MysqlInboxStore(
            DataSource dataSource,
            MysqlStatements sql,
            Duration grace,
            int purgeBatchSize,
            PurgePacing purgePacing,
            int lockWaitSeconds) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcExecutor(dataSource);
        this.sql = sql;
        this.graceMicros = Micros.of(grace);
        this.purgeBatchSize = purgeBatchSize;
        this.purgePacing = purgePacing;
        this.lockWaitSeconds = lockWaitSeconds;
        this.mariadbBoundedClaim = lockWaitSeconds == 0 ? null : sql.claimWithLockWait(lockWaitSeconds);
        this.mariadbBoundedClaimNew = lockWaitSeconds == 0 ? null : sql.claimNewWithLockWait(lockWaitSeconds);
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
     * the sequence table, unless they exist, and upgrades an older inbox table in place (version 1
     * or 2: see docs/mysql.md and docs/postgresql.md). Idempotent.
     *
     * @throws InboxStoreException if the DDL failed
     */
    public void createSchemaIfMissing() {
        jdbc.execute("create schema for " + sql.inboxTable(), connection -> {
            SqlParams lock = SqlParams.create().text("lock", "dev.inbox.schema:" + sql.inboxTable());
            try (PreparedStatement acquire = sql.schemaLock().prepare(connection, lock);
                    ResultSet granted = acquire.executeQuery()) {
                if (!granted.next() || granted.getInt(1) != 1) {
                    throw new InboxStoreException(
                            "another instance held the schema lock of " + sql.inboxTable() + " for 60 s", null);
                }
            }
            try (Statement ddl = connection.createStatement()) {
                List<String> upgrade = upgradeNeeded(connection);
                for (String statement : upgrade) {
                    ddl.execute(statement);
                }
                for (String statement : sql.schemaDdl()) {
                    ddl.execute(statement);
                }
            } finally {
                try (PreparedStatement release = sql.schemaUnlock().prepare(connection, lock)) {
                    release.execute();
                }
            }
            return null;
        });
    }

    /**
     * The statements that bring an older table to version 3: none for a missing or current table;
     * version 1 → 2 without the column's creation when an earlier upgrade was cut short after it.
     */
    private List<String> upgradeNeeded(Connection connection) throws SQLException {
        try (PreparedStatement exists = sql.tableExists().prepare(connection, SqlParams.create());
                ResultSet table = exists.executeQuery()) {
            if (!table.next()) {
                return List.of();
            }
        }
        List<String> upgrade = new ArrayList<>();
        try (PreparedStatement column = sql.purgeAfterColumn().prepare(connection, SqlParams.create());
                ResultSet nullable = column.executeQuery()) {
            List<String> toV2 = sql.upgradeV1ToV2(graceMicros);
            if (!nullable.next()) {
                upgrade.addAll(toV2);
            } else if ("YES".equals(nullable.getString(1))) {
                upgrade.addAll(toV2.subList(1, toV2.size()));
            }
        }
        try (PreparedStatement column = sql.resultColumn().prepare(connection, SqlParams.create());
                ResultSet exists = column.executeQuery()) {
            if (!exists.next()) {
                upgrade.addAll(sql.upgradeV2ToV3());
            }
        }
        return upgrade;
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        return jdbc.execute(
                "claim of " + request.key(),
                connection ->
                        MysqlDeadlocks.retrying(connection, c -> claimOn(c, request, 0, Micros.of(request.lease()))));
    }

    @Override
    public ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
        return claimInTransaction(
                connection, TransactionalInboxStore.transactionalRequest(connection, key, retention, fingerprint));
    }

    private ClaimResult claimInTransaction(Connection connection, ClaimRequest request) {
        long retentionMicros = Micros.of(request.lease());
        return jdbc.executeIn(connection, "transactional claim of " + request.key(), c -> {
            NamedSql mariadbClaim = mariadbBoundedClaim;
            if (mariadbClaim == null) {
                return claimOn(c, request, 1, retentionMicros, sql.claim(1), sql.claimNew());
            }
            if (isMariadb(c)) {
                return claimOn(c, request, 1, retentionMicros, mariadbClaim, mariadbBoundedClaimNew);
            }
            return claimWithSessionLockWait(c, request, retentionMicros);
        });
    }

    /** MySQL: the session's lock wait set around the claim, and restored even when the claim fails. */
    ClaimResult claimWithSessionLockWait(Connection c, ClaimRequest request, long retentionMicros) throws SQLException {
        return withSessionLockWait(c, () -> claimOn(c, request, 1, retentionMicros, sql.claim(1), sql.claimNew()));
    }

    /**
     * One multi-row {@code INSERT … ON DUPLICATE KEY UPDATE} per chunk of up to {@value
     * #BATCH_CHUNK} keys, in the caller's transaction and bounded by the {@linkplain
     * Builder#lockWaitTimeout(Duration) lock wait} like {@link #claimInTransaction}: the new keys are
     * written COMPLETED in that transaction. When some keys conflicted, one locking read of the
     * chunk's rows answers them; keys that read cannot decide (a record to take over) are claimed
     * alone after it.
     */
    @Override
    public List<ClaimResult> claimAllInTransaction(Connection connection, List<InboxKey> keys, Duration retention) {
        List<ClaimRequest> requests = TransactionalInboxStore.transactionalRequests(connection, keys, retention);
        return BatchClaims.claimAll(
                requests,
                BATCH_CHUNK,
                chunk -> jdbc.executeIn(
                        connection,
                        "transactional claimAll of " + chunk.size() + " keys",
                        c -> claimChunkInTransaction(c, chunk)),
                request -> claimInTransaction(connection, request));
    }

    private ClaimResult[] claimChunkInTransaction(Connection connection, List<ClaimRequest> chunk) throws SQLException {
        int n = chunk.size();
        ClaimResult[] answers = new ClaimResult[n];
        if (n == 1) {
            return answers; // null: claimed alone, whose statement reports the row's code
        }
        SqlParams params = SqlParams.create().bigint("grace_us", graceMicros);
        for (int i = 0; i < n; i++) {
            bindRow(params, i, chunk.get(i), 1, Micros.of(chunk.get(i).lease()));
        }
        SqlWork<Long> insert = statement -> {
            try (PreparedStatement s = MysqlCodec.prepareReporting(statement, connection, params)) {
                s.executeUpdate();
                return MysqlCodec.lastInsertId(s);
            }
        };
        long conflicts;
        if (mariadbBoundedClaim == null) {
            conflicts = insert.run(sql.claim(n));
        } else if (isMariadb(connection)) {
            conflicts = insert.run(sql.claimWithLockWait(n, lockWaitSeconds));
        } else {
            conflicts = withSessionLockWait(connection, () -> insert.run(sql.claim(n)));
        }
        if (conflicts == 0) {
            Arrays.fill(answers, ClaimResult.acquired()); // every row was inserted by this statement
            return answers;
        }
        Map<String, Map<String, StoredRecord>> after = readBack(connection, chunk, true);
        for (int j = 0; j < n; j++) {
            ClaimRequest request = chunk.get(j);
            StoredRecord record =
                    after.get(request.key().consumer()).get(request.key().id());
            if (record != null && record.owner().equals(request.owner().value())) {
                answers[j] = ClaimResult.acquired(); // written by this statement, in this transaction
            } else {
                answers[j] = record == null ? null : record.answer(false, request);
            }
        }
        return answers;
    }

    /** A statement's work on the caller's connection. */
    @FunctionalInterface
    private interface SqlWork<T> {
        T run(NamedSql statement) throws SQLException;
    }

    /** Work that may throw {@link SQLException}. */
    @FunctionalInterface
    private interface SqlCall<T> {
        T call() throws SQLException;
    }

    @Override
    public void keepResultInTransaction(Connection connection, InboxKey key, byte[] result) {
        requireNonNull(connection, "connection");
        requireNonNull(key, "key");
        requireResult(result, MAX_RESULT_BYTES, this);
        SqlParams params = SqlParams.create()
                .bytes("consumer", MysqlCodec.bytes(key.consumer()))
                .bytes("key", key.idBytes())
                .bytes("result", result);
        jdbc.keepResultIn(connection, key, sql.keepResult(), params, 0);
    }

    /** MySQL: the session's lock wait set around a claim, and restored even when the claim fails. */
    private <T> T withSessionLockWait(Connection c, SqlCall<T> claim) throws SQLException {
        try (Statement session = c.createStatement()) {
            session.execute(MysqlStatements.setLockWait(lockWaitSeconds));
            SQLException failure = null;
            try {
                return claim.call();
            } catch (SQLException e) {
                failure = e;
                throw e;
            } finally {
                try {
                    session.execute(MysqlStatements.RESTORE_LOCK_WAIT);
                } catch (SQLException restoreFailure) {
                    if (failure == null) {
                        throw restoreFailure;
                    }
                    failure.addSuppressed(restoreFailure);
                }
            }
        }
    }

    private boolean isMariadb(Connection c) throws SQLException {
        Boolean known = mariadb;
        if (known == null) {
            known = c.getMetaData().getDatabaseProductVersion().contains("MariaDB");
            mariadb = known;
        }
        return known;
    }

    private ClaimResult claimOn(Connection connection, ClaimRequest request, int state, long durationMicros)
            throws SQLException {
        return claimOn(connection, request, state, durationMicros, sql.claim(1), sql.claimNew());
    }

    /**
     * Claims one key with {@code claim} ({@link MysqlStatements#claim(int) claim(1)} or its bounded
     * form), starting with {@code claimNew} (the same row without the code) while most keys are new.
     */
    private ClaimResult claimOn(
            Connection connection,
            ClaimRequest request,
            int state,
            long durationMicros,
            NamedSql claim,
            @Nullable NamedSql claimNew)
            throws SQLException {
        SqlParams params = SqlParams.create().bigint("grace_us", graceMicros);
        bindRow(params, 0, request, state, durationMicros);
        // A key that is most likely new: the short statement, and nothing more when it was new
        // (ClaimShape says when keys that are there are common enough to skip it).
        boolean learned = false;
        if (claimNew != null && shape.writeFirst()) {
            long code;
            try (PreparedStatement statement = MysqlCodec.prepareReporting(claimNew, connection, params)) {
                statement.executeUpdate();
                code = MysqlCodec.lastInsertId(statement);
            }
            shape.found(code == 0);
            if (code == 0) {
                return ClaimResult.acquired();
            }
            learned = true;
        }
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            long code;
            try (PreparedStatement statement = MysqlCodec.prepareReporting(claim, connection, params)) {
                statement.executeUpdate();
                code = MysqlCodec.lastInsertId(statement);
            }
            if (!learned) {
                shape.found(code == 0);
                learned = true;
            }
            ClaimResult answer = MysqlCodec.decode(code);
            if (answer == null) {
                // An expired lease, the same owner's retry or a record past grace: take it, if it
                // still may be taken; if it changed since, claim again.
                try (PreparedStatement statement = sql.take().prepare(connection, params)) {
                    if (statement.executeUpdate() == 1) {
                        return MysqlCodec.taken(code);
                    }
                }
                continue;
            }
            if (answer.status() != ClaimStatus.DUPLICATE || (code & MysqlStatements.HAS_RESULT) == 0) {
                return answer;
            }
            // The code says only that the record keeps a result: read it. A COMPLETED record does not
            // change until it is past grace; if it went meanwhile, claim again.
            SqlParams key = MysqlCodec.keyAndOwner(request.key(), request.owner());
            try (PreparedStatement statement = sql.resultOf().prepare(connection, key);
                    ResultSet row = statement.executeQuery()) {
                if (row.next() && row.getBytes(1) != null) {
                    return ClaimResult.duplicate(answer.isLate(), answer.fingerprint(), row.getBytes(1))
                            .withPastRetention(answer.pastRetention());
                }
            }
        }
        throw new InboxStoreException(
                "claim of " + request.key() + " found its record changing under it " + MAX_ATTEMPTS + " times", null);
    }

    /** The parameters of row {@code i} of {@link MysqlStatements#claim(int)}. */
    private static void bindRow(SqlParams params, int i, ClaimRequest request, int state, long micros) {
        params.bytes("consumer_" + i, MysqlCodec.bytes(request.key().consumer()))
                .bytes("key_" + i, request.key().idBytes())
                .bytes("owner_" + i, MysqlCodec.bytes(request.owner().value()))
                .integer("state_" + i, state)
                .bigint("duration_us_" + i, micros)
                .bytes("fingerprint_" + i, MysqlCodec.bytesOrNull(request.fingerprint()));
    }

    /** Whether the next claim starts with {@link MysqlStatements#claimNew()} ({@link ClaimShape}); for tests. */
    boolean claimsStartWithNewKeyStatement() {
        return shape.writeFirst();
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        jdbc.ensureOpen();
        return BatchClaims.claimAll(
                requests,
                BATCH_CHUNK,
                chunk -> jdbc.execute(
                        "claimAll of " + chunk.size() + " keys",
                        connection -> MysqlDeadlocks.retrying(connection, c -> claimChunk(c, chunk))),
                this::claim);
    }

    private ClaimResult[] claimChunk(Connection connection, List<ClaimRequest> chunk) throws SQLException {
        // The multi-row statement inserts the new keys and renews the same owner's leases; it takes
        // nothing over. What each key holds after it tells the answer: a lease of the request's owner
        // is ACQUIRED; a key that may be taken over (an expired lease, a record past grace) is
        // claimed alone afterwards, which takes it and reports the takeover.
        SqlParams params = SqlParams.create().bigint("grace_us", graceMicros);
        for (int i = 0; i < chunk.size(); i++) {
            bindRow(params, i, chunk.get(i), 0, Micros.of(chunk.get(i).lease()));
        }
        long conflicts;
        try (PreparedStatement statement = MysqlCodec.prepareReporting(sql.claim(chunk.size()), connection, params)) {
            statement.executeUpdate();
            conflicts = chunk.size() == 1 ? -1 : MysqlCodec.lastInsertId(statement);
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
        ClaimResult[] answers = new ClaimResult[chunk.size()];
        if (conflicts == 0) {
            Arrays.fill(answers, ClaimResult.acquired()); // every row was inserted by this statement
            return answers;
        }
        Map<String, Map<String, StoredRecord>> after = readBack(connection, chunk, false);
        for (int j = 0; j < chunk.size(); j++) {
            ClaimRequest request = chunk.get(j);
            StoredRecord record =
                    after.get(request.key().consumer()).get(request.key().id());
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

    /** The records of the chunk's keys as they are now, by consumer and id (absent keys missing). */
    private Map<String, Map<String, StoredRecord>> readBack(
            Connection connection, List<ClaimRequest> chunk, boolean locking) throws SQLException {
        Map<String, List<String>> idsByConsumer = new HashMap<>();
        for (ClaimRequest request : chunk) {
            idsByConsumer
                    .computeIfAbsent(request.key().consumer(), c -> new ArrayList<>())
                    .add(request.key().id());
        }
        Map<String, Map<String, StoredRecord>> records = new HashMap<>();
        for (Map.Entry<String, List<String>> group : idsByConsumer.entrySet()) {
            records.put(group.getKey(), readBack(connection, group.getKey(), group.getValue(), locking));
        }
        return records;
    }

    private Map<String, StoredRecord> readBack(
            Connection connection, String consumer, List<String> ids, boolean locking) throws SQLException {
        Map<String, StoredRecord> records = new HashMap<>();
        SqlParams params =
                SqlParams.create().bigint("grace_us", graceMicros).bytes("consumer", MysqlCodec.bytes(consumer));
        for (int i = 0; i < ids.size(); i++) {
            params.bytes("key_" + i, MysqlCodec.bytes(ids.get(i)));
        }
        NamedSql read = locking ? sql.lockingReadBack(ids.size()) : sql.readBack(ids.size());
        try (PreparedStatement statement = read.prepare(connection, params);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                records.put(MysqlCodec.text(rows.getBytes(1)), MysqlCodec.record(rows));
            }
        }
        return records;
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        return complete(key, owner, retentionMicros, sql.complete(), null);
    }

    /** Keeps {@code result} in the record's {@code MEDIUMBLOB}, at most {@link #MAX_RESULT_BYTES}. */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        requireResult(result, MAX_RESULT_BYTES, this);
        return complete(key, owner, retentionMicros, sql.completeWithResult(), result);
    }

    /**
     * {@value #MAX_RESULT_BYTES}, well inside the server's default {@code max_allowed_packet}
     * (16 MiB on MariaDB, 64 MiB on MySQL 8).
     */
    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    private boolean complete(
            InboxKey key, OwnerToken owner, long retentionMicros, NamedSql completion, byte @Nullable [] result) {
        return jdbc.execute(
                "complete of " + key,
                connection -> MysqlDeadlocks.retrying(connection, c -> {
                    SqlParams params = MysqlCodec.keyAndOwner(key, owner)
                            .bigint("grace_us", graceMicros)
                            .bigint("retention_us", retentionMicros);
                    if (result != null) {
                        params.bytes("result", result);
                    }
                    try (PreparedStatement statement = completion.prepare(c, params)) {
                        if (statement.executeUpdate() == 1) {
                            return true;
                        }
                    }
                    // No row counted: a stranger, or (under useAffectedRows=true) a repeat that changed nothing.
                    try (PreparedStatement statement = sql.completedBy().prepare(c, params);
                            ResultSet row = statement.executeQuery()) {
                        return row.next();
                    }
                }));
    }

    /**
     * Completes the batch with two statements per chunk of {@value #BATCH_CHUNK} distinct items, in
     * one transaction: one {@code UPDATE} of them all, then one {@code SELECT} of which are now
     * COMPLETED by their owner (MySQL has no {@code UPDATE … RETURNING}, and what an update counts
     * depends on the data source's {@code useAffectedRows}).
     */
    @Override
    public List<Boolean> completeAll(List<HeldKey> held, Duration retention) {
        InboxArguments.requireNoNulls(held, "held");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        jdbc.ensureOpen();
        return BatchCompletions.completeAll(
                held,
                retention,
                BATCH_CHUNK,
                chunk -> jdbc.execute(
                        "completeAll of " + chunk.size() + " keys",
                        connection ->
                                MysqlDeadlocks.retrying(connection, c -> completeChunk(c, chunk, retentionMicros))));
    }

    private Set<HeldKey> completeChunk(Connection connection, List<HeldKey> chunk, long retentionMicros)
            throws SQLException {
        SqlParams params = SqlParams.create().bigint("grace_us", graceMicros).bigint("retention_us", retentionMicros);
        for (int i = 0; i < chunk.size(); i++) {
            HeldKey item = chunk.get(i);
            params.bytes("consumer_" + i, MysqlCodec.bytes(item.key().consumer()))
                    .bytes("key_" + i, item.key().idBytes())
                    .bytes("owner_" + i, MysqlCodec.bytes(item.owner().value()));
        }
        try (PreparedStatement statement = sql.completeBatch(chunk.size()).prepare(connection, params)) {
            statement.executeUpdate();
        }
        Set<HeldKey> done = new HashSet<>();
        try (PreparedStatement statement = sql.completedBatch(chunk.size()).prepare(connection, params);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                HeldKey completed = new HeldKey(
                        InboxKey.of(MysqlCodec.text(rows.getBytes(1)), MysqlCodec.text(rows.getBytes(2))),
                        OwnerToken.of(MysqlCodec.text(rows.getBytes(3))));
                done.add(completed);
            }
        }
        return done;
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long leaseMicros = Micros.of(requirePositive(lease, "lease"));
        return jdbc.execute(
                "renewal of " + key,
                connection -> MysqlDeadlocks.retrying(connection, c -> {
                    SqlParams params = MysqlCodec.keyAndOwner(key, owner)
                            .bigint("grace_us", graceMicros)
                            .bigint("lease_us", leaseMicros);
                    try (PreparedStatement statement = sql.renew().prepare(c, params)) {
                        return statement.executeUpdate() == 1;
                    }
                }));
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        return jdbc.execute(
                "release of " + key,
                connection -> MysqlDeadlocks.retrying(connection, c -> {
                    SqlParams params = MysqlCodec.keyAndOwner(key, owner).bigint("grace_us", graceMicros);
                    try (PreparedStatement statement = sql.release().prepare(c, params)) {
                        return statement.executeUpdate() == 1;
                    }
                }));
    }

    /**
     * The operator's operations on this store's table, by the server's {@code UTC_TIMESTAMP(6)}:
     * inspect, release and forget are one primary-key lookup or delete; a page of {@code stuck}
     * walks the consumer's part of the primary key from its cursor until it has the page; {@code
     * count} reads all the consumer's rows. Each runs in its own short transaction.
     *
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public InboxAdmin admin() {
        jdbc.ensureOpen();
        return new JdbcInboxAdmin(jdbc, sql.inboxTable(), JdbcInboxAdmin.Dialect.MYSQL, 0);
    }

    /**
     * Deletes the records past expiry + grace in batches of {@link Builder#purgeBatchSize(int)}
     * rows, oldest first, each its own short transaction, until a batch comes back short, resting
     * between batches as {@link Builder#purgeNiceRatio(double)} asks. A purge interrupted while it
     * rests returns the rows deleted so far.
     */
    @Override
    public long purge() {
        return jdbc.executeInBatches(
                "purge of " + sql.inboxTable(),
                purgeBatchSize,
                purgePacing,
                connection -> MysqlDeadlocks.retrying(connection, c -> {
                    SqlParams params =
                            SqlParams.create().bigint("grace_us", graceMicros).integer("batch_size", purgeBatchSize);
                    try (PreparedStatement statement = sql.purgeBatch().prepare(c, params)) {
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

    /**
     * The inbox table, qualified with its schema and quoted as the store's statements name it: for
     * queries of your own (monitoring, a record count), so they never retype the name.
     */
    public String tableName() {
        return sql.inboxTable();
    }

    /** The purge's rest after each statement, as a multiple of its time ({@link Builder#purgeNiceRatio(double)}). */
    public double purgeNiceRatio() {
        return purgePacing.ratio();
    }

    @Override
    public String toString() {
        return "MysqlInboxStore[" + sql.inboxTable() + "]";
    }

    /** Configures a {@link MysqlInboxStore}; each setter checks its argument at once. */
    public static final class Builder extends JdbcStoreBuilder<Builder> {

        private int lockWaitSeconds;

        private Builder(DataSource dataSource) {
            super(dataSource);
        }

        /**
         * The longest a transactional claim waits for a key that another open transaction holds
         * (a consumer hung inside its transaction), before it fails with a retryable {@link
         * InboxStoreException}: {@code innodb_lock_wait_timeout}, in whole seconds (rounded up),
         * for the claim alone. Default: the server's own {@code innodb_lock_wait_timeout}, 50 s out
         * of the box, with no extra statement.
         *
         * @throws IllegalArgumentException if null, not positive, or over one year (InnoDB's limit)
         */
        public Builder lockWaitTimeout(Duration lockWaitTimeout) {
            requirePositive(lockWaitTimeout, "lockWaitTimeout");
            long seconds = lockWaitTimeout.plusNanos(999_999_999).getSeconds();
            InboxArguments.requireArgument(
                    seconds <= MAX_LOCK_WAIT_SECONDS,
                    "lockWaitTimeout must be at most " + MAX_LOCK_WAIT_SECONDS + " s but was " + lockWaitTimeout);
            this.lockWaitSeconds = (int) seconds;
            return this;
        }

        /** Builds the store; it does not touch the database until used. */
        public MysqlInboxStore build() {
            return new MysqlInboxStore(
                    dataSource,
                    new MysqlStatements(schema, table, sequenceTable),
                    grace,
                    purgeBatchSize,
                    purgePacing,
                    lockWaitSeconds);
        }
    }
}
