package dev.inbox.postgres;

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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL {@link dev.inbox.spi.InboxStore}, in lease mode and in transactional mode.
 *
 * <pre>{@code
 * PostgresInboxStore store = PostgresInboxStore.builder(dataSource).build(); // your pool
 * store.createSchemaIfMissing();
 * }</pre>
 *
 * <p><b>Record.</b> One row per key in table {@code inbox} (configurable): {@code (consumer,
 * dedup_key)} primary key in the byte-exact "C" collation, {@code owner_token}, {@code state} (0
 * IN_PROGRESS, 1 COMPLETED), {@code expires_at} (the end of the lease or of the retention), {@code
 * purge_after} (expiry + the grace of the instance that wrote it: the record counts as absent
 * from then on, for every instance), an optional {@code fingerprint} and an optional {@code
 * result} (the handler's result a COMPLETED record keeps). The DDL ships in the jar as {@code
 * dev/inbox/postgres/schema-v3.sql}; {@link #createSchemaIfMissing()} upgrades a version 1 or 2
 * table in place.
 *
 * <p><b>Algorithm.</b> Every operation is one statement, decided by the database:
 *
 * <ol>
 *   <li>claim: {@code INSERT … ON CONFLICT DO NOTHING}, reading back in the same statement the
 *       row it conflicted with. A new key is ACQUIRED; a COMPLETED row answers DUPLICATE (late
 *       when past retention), another owner's live lease BUSY — without locking or writing the
 *       row, so a duplicate storm costs reads only. Only when the row may be taken (an expired
 *       lease, the same owner retrying, a row past grace) does a second statement decide, under
 *       the row lock: {@code INSERT … ON CONFLICT DO UPDATE … WHERE} the row is still takeable.
 *   <li>complete: {@code UPDATE … SET state = 1 WHERE owner_token = ?}; release: {@code DELETE …
 *       WHERE owner_token = ? AND state = 0}.
 *   <li>claimAll: the same fast path as one {@code unnest(…)} statement per chunk of {@value
 *       #BATCH_CHUNK} keys, inserted in a fixed order so that concurrent batches cannot deadlock;
 *       keys to take over are then claimed one by one.
 *   <li>purge: {@code DELETE} of at most {@link Builder#purgeBatchSize(int)} rows past expiry +
 *       grace per statement, oldest first by the {@code purge_after} index, each statement
 *       starting where the one before ended (not walking the index entries of the rows already
 *       deleted, which stay until vacuum), until none is left.
 * </ol>
 *
 * <p><b>Time.</b> Expiry is decided by the database's {@code clock_timestamp()}, never by the JVM's
 * clock: a fleet whose clocks disagree still agrees on who holds a lease.
 *
 * <p><b>Transactional mode.</b> {@link #claimInTransaction(Connection, InboxKey, Duration, String)} runs the same
 * statement inside the caller's transaction and writes a COMPLETED record directly. {@code ON
 * CONFLICT} never raises a unique violation, so the transaction stays usable whatever the answer.
 * A concurrent transaction on the same key waits on the row lock and then sees DUPLICATE (after
 * commit) or ACQUIRED (after rollback). Use READ COMMITTED, PostgreSQL's default.
 *
 * <p><b>A consumer that hangs inside its transaction</b> holds the row lock for as long as its
 * transaction stays open, and PostgreSQL's own {@code lock_timeout} is 0 (wait forever). A
 * transactional claim therefore waits at most {@link Builder#lockWaitTimeout(Duration)} (default
 * {@value #DEFAULT_LOCK_WAIT_SECONDS} s) and then fails with a retryable {@link InboxStoreException}
 * (SQL state 55P03): roll back and let the broker redeliver. The bound applies to the claim's
 * statements alone — the transaction's own {@code lock_timeout} is restored after them in the same
 * round trip — and a consumer that dies releases the lock as soon as the server sees its
 * connection close. Lease-mode claims never hold a lock beyond one statement, so only a
 * transactional claim in flight can make them wait; bound those with the data source's {@code
 * socketTimeout} or {@link Builder#queryTimeout(Duration)}.
 *
 * <p>The store borrows a connection from the caller's {@link DataSource} for each operation and
 * never closes the data source.
 */
public final class PostgresInboxStore implements TransactionalInboxStore {

    /** The longest result {@link #complete(InboxKey, OwnerToken, Duration, byte[])} keeps: 1 MiB. */
    public static final int MAX_RESULT_BYTES = 1 << 20;

    /** The most keys sent in one {@code claimAll} statement. */
    public static final int BATCH_CHUNK = 1_000;

    /** The default of {@link Builder#lockWaitTimeout(Duration)}, in seconds. */
    public static final int DEFAULT_LOCK_WAIT_SECONDS = 10;

    private static final int MAX_ATTEMPTS = 8;

    private final DataSource dataSource;
    private final JdbcExecutor jdbc;
    private final PostgresStatements sql;
    private final long graceMicros;
    private final ClaimShape shape = new ClaimShape();
    private final int purgeBatchSize;
    private final PurgePacing purgePacing;
    private final int queryTimeoutSeconds;
    private final String lockWaitMillis;

    private PostgresInboxStore(
            DataSource dataSource,
            PostgresStatements sql,
            Duration grace,
            int purgeBatchSize,
            PurgePacing purgePacing,
            @Nullable Duration queryTimeout,
            Duration lockWait) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcExecutor(dataSource);
        this.sql = sql;
        this.graceMicros = Micros.of(grace);
        this.purgeBatchSize = purgeBatchSize;
        this.purgePacing = purgePacing;
        this.queryTimeoutSeconds = queryTimeout == null ? 0 : (int) Math.max(1, queryTimeout.toSeconds());
        this.lockWaitMillis = Long.toString(lockWait.toMillis());
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
     * Creates the schema (when one is configured), the inbox table, its purge index and the
     * sequence table, unless they exist, and upgrades an older inbox table in place (version 1 or 2:
     * see docs/postgresql.md). Safe to call from every instance at start-up: concurrent
     * calls are serialised by an advisory lock, and when everything is in place (read from the
     * catalog) no DDL runs, so an instance starting beside running ones neither waits for their
     * open transactions nor makes their claims wait.
     *
     * @throws InboxStoreException if the DDL failed (for example for lack of privileges)
     */
    public void createSchemaIfMissing() {
        jdbc.execute("create schema for " + sql.inboxTable(), connection -> {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (PreparedStatement lock = sql.schemaLock()
                            .prepare(
                                    connection,
                                    SqlParams.create().text("lock", "dev.inbox.schema:" + sql.inboxTable()));
                    Statement ddl = connection.createStatement()) {
                // A ready schema gets no DDL at all: the instances already running keep their
                // transactions open on the table, and DDL would wait for them (and queue their
                // claims behind it).
                if (schemaVersion(connection) == 3 && schemaObjectsExist(connection)) {
                    connection.commit();
                    return null;
                }
                lock.execute();
                int version = schemaVersion(connection);
                List<String> upgrade = new ArrayList<>();
                if (version == 1) {
                    upgrade.addAll(sql.upgradeV1ToV2(graceMicros));
                }
                if (version == 1 || version == 2) {
                    upgrade.addAll(sql.upgradeV2ToV3());
                }
                for (String statement : upgrade) {
                    ddl.execute(statement);
                }
                for (String statement : sql.schemaDdl()) {
                    ddl.execute(statement);
                }
                connection.commit();
                return null;
            } catch (SQLException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        });
    }

    /** The inbox table's schema version (1, 2 or 3), or 0 when there is no table. */
    private int schemaVersion(Connection connection) throws SQLException {
        try (PreparedStatement check = sql.schemaVersion()
                        .prepare(connection, SqlParams.create().text("table", sql.inboxTable()));
                ResultSet row = check.executeQuery()) {
            return row.next() ? row.getInt(1) : 0;
        }
    }

    private boolean schemaObjectsExist(Connection connection) throws SQLException {
        try (PreparedStatement check = sql.schemaObjectsExist()
                        .prepare(
                                connection,
                                SqlParams.create()
                                        .text("index", sql.purgeIndexQualified())
                                        .text("sequences", sql.sequenceTableQualified()));
                ResultSet row = check.executeQuery()) {
            return row.next() && row.getBoolean(1);
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        requireNonNull(request, "request");
        return jdbc.execute(
                "claim of " + request.key(), connection -> claimOn(connection, request, 0, Micros.of(request.lease())));
    }

    @Override
    public ClaimResult claimInTransaction(
            Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
        ClaimRequest request = TransactionalInboxStore.transactionalRequest(connection, key, retention, fingerprint);
        long retentionMicros = Micros.of(request.lease());
        return jdbc.executeIn(
                connection, "transactional claim of " + key, c -> claimOn(c, request, 1, retentionMicros));
    }

    @Override
    public void keepResultInTransaction(Connection connection, InboxKey key, byte[] result) {
        requireNonNull(connection, "connection");
        requireNonNull(key, "key");
        requireResult(result, MAX_RESULT_BYTES, this);
        SqlParams params = SqlParams.create()
                .text("consumer", key.consumer())
                .text("key", key.id())
                .bytes("result", result);
        jdbc.keepResultIn(connection, key, sql.keepResult(), params, queryTimeoutSeconds);
    }

    private ClaimResult claimOn(Connection connection, ClaimRequest request, int state, long durationMicros)
            throws SQLException {
        SqlParams params = SqlParams.create()
                .text("consumer", request.key().consumer())
                .text("key", request.key().id())
                .text("owner", request.owner().value())
                .integer("state", state)
                .bigint("duration_us", durationMicros)
                .text("fingerprint", request.fingerprint())
                .bigint("grace_us", graceMicros);
        // A transactional claim may wait on another open transaction: bound that wait.
        boolean bounded = state == 1;
        if (bounded) {
            params.text("lock_timeout_ms", lockWaitMillis);
        }
        // A claim of what is most likely a new key: the plain insert, and nothing more when it was
        // new (ClaimShape says when duplicates are common enough to skip it).
        boolean learned = false;
        if (shape.writeFirst()) {
            try (PreparedStatement insert =
                    (bounded ? sql.boundedInsertIfAbsent() : sql.insertIfAbsent()).prepare(connection, params)) {
                setTimeout(insert);
                boolean inserted = update(insert, bounded) == 1;
                shape.found(inserted);
                if (inserted) {
                    return ClaimResult.acquired();
                }
            }
            learned = true;
        }
        // Fast path: a new key is inserted, a duplicate or a busy key is answered from the row as
        // read, and neither locks nor writes anything.
        try (PreparedStatement statement =
                (bounded ? sql.boundedClaimIfAbsent() : sql.claimIfAbsent()).prepare(connection, params)) {
            setTimeout(statement);
            try (ResultSet row = query(statement, bounded)) {
                if (row.next()) {
                    if (!learned) {
                        shape.found(row.getBoolean(1));
                    }
                    ClaimResult answer = StoredRecord.answer(record(row, 2), row.getBoolean(1), request);
                    if (answer != null) {
                        return answer;
                    }
                }
            }
        }
        // The record may be taken over (or was inserted by a transaction the snapshot cannot see):
        // let the conditional upsert decide, under the row lock.
        try (PreparedStatement statement = (bounded ? sql.boundedClaim() : sql.claim()).prepare(connection, params)) {
            setTimeout(statement);
            for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
                try (ResultSet row = query(statement, bounded)) {
                    row.next();
                    ClaimResult answer = StoredRecord.answer(record(row, 2), row.getBoolean(1), request);
                    if (answer != null) {
                        return answer;
                    }
                }
            }
        }
        throw new InboxStoreException(
                "claim of " + request.key() + " found its record changing under it " + MAX_ATTEMPTS + " times", null);
    }

    /** Whether the next claim starts with the plain insert ({@link ClaimShape}); for tests. */
    boolean claimsStartWithInsert() {
        return shape.writeFirst();
    }

    /** Runs {@code statement}: the insert's update count, the second of three results when lock-bounded. */
    private static int update(PreparedStatement statement, boolean bounded) throws SQLException {
        execute(statement, bounded);
        return statement.getUpdateCount();
    }

    /** Runs {@code statement}: the claim's result, the second of three when lock-bounded. */
    private static ResultSet query(PreparedStatement statement, boolean bounded) throws SQLException {
        execute(statement, bounded);
        return statement.getResultSet();
    }

    /** Runs {@code statement} and moves to the claim's own result: past {@code set_config} when lock-bounded. */
    private static void execute(PreparedStatement statement, boolean bounded) throws SQLException {
        statement.execute();
        if (bounded) {
            statement.getMoreResults();
        }
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        jdbc.ensureOpen();
        return BatchClaims.claimAll(
                requests,
                BATCH_CHUNK,
                chunk -> jdbc.execute("claimAll of " + chunk.size() + " keys", c -> claimChunk(c, chunk, 0)),
                this::claim);
    }

    /**
     * One statement per chunk of up to {@value #BATCH_CHUNK} keys, in the caller's transaction and
     * bounded by the {@linkplain Builder#lockWaitTimeout(Duration) lock wait} like {@link
     * #claimInTransaction}; keys the statement cannot decide (a record to take over, or one a
     * concurrent transaction just committed) are claimed alone after it.
     */
    @Override
    public List<ClaimResult> claimAllInTransaction(Connection connection, List<InboxKey> keys, Duration retention) {
        List<ClaimRequest> requests = TransactionalInboxStore.transactionalRequests(connection, keys, retention);
        long retentionMicros = Micros.of(retention);
        return BatchClaims.claimAll(
                requests,
                BATCH_CHUNK,
                chunk -> jdbc.executeIn(
                        connection,
                        "transactional claimAll of " + chunk.size() + " keys",
                        c -> claimChunk(c, chunk, 1)),
                request -> jdbc.executeIn(
                        connection,
                        "transactional claim of " + request.key(),
                        c -> claimOn(c, request, 1, retentionMicros)));
    }

    /** The batch fast path for {@code chunk}: leases ({@code state} 0) or transactional claims (1). */
    private ClaimResult[] claimChunk(Connection connection, List<ClaimRequest> chunk, int state) throws SQLException {
        int n = chunk.size();
        String[] consumers = new String[n];
        String[] keys = new String[n];
        String[] owners = new String[n];
        Long[] leases = new Long[n];
        String[] fingerprints = new String[n];
        for (int j = 0; j < n; j++) {
            ClaimRequest request = chunk.get(j);
            consumers[j] = request.key().consumer();
            keys[j] = request.key().id();
            owners[j] = request.owner().value();
            leases[j] = Micros.of(request.lease());
            fingerprints[j] = request.fingerprint();
        }
        ClaimResult[] answers = new ClaimResult[n];
        SqlParams params = SqlParams.create()
                .array("consumers", connection.createArrayOf("text", consumers))
                .array("keys", connection.createArrayOf("text", keys))
                .array("owners", connection.createArrayOf("text", owners))
                .array("leases_us", connection.createArrayOf("int8", leases))
                .array("fingerprints", connection.createArrayOf("text", fingerprints))
                .integer("state", state)
                .bigint("grace_us", graceMicros);
        // A transactional batch may wait on other open transactions: bound that wait, as a claim's.
        boolean bounded = state == 1;
        if (bounded) {
            params.text("lock_timeout_ms", lockWaitMillis);
        }
        try (PreparedStatement statement =
                (bounded ? sql.boundedClaimBatchIfAbsent() : sql.claimBatchIfAbsent()).prepare(connection, params)) {
            setTimeout(statement);
            try (ResultSet rows = query(statement, bounded)) {
                while (rows.next()) {
                    int j = rows.getInt(1) - 1;
                    // null: a key to take over, or one the snapshot cannot see; claimed alone after
                    answers[j] = StoredRecord.answer(record(rows, 3), rows.getBoolean(2), chunk.get(j));
                }
            }
        }
        return answers;
    }

    /** The key, the owner and this store's grace: what complete and release are conditioned on. */
    private SqlParams ownerParams(InboxKey key, OwnerToken owner) {
        return SqlParams.create()
                .text("consumer", key.consumer())
                .text("key", key.id())
                .text("owner", owner.value())
                .bigint("grace_us", graceMicros);
    }

    private void setTimeout(Statement statement) throws SQLException {
        if (queryTimeoutSeconds > 0) {
            statement.setQueryTimeout(queryTimeoutSeconds);
        }
    }

    /** The record read back by a claim, from the columns starting at {@code first}; null if none. */
    private static @Nullable StoredRecord record(ResultSet row, int first) throws SQLException {
        String owner = row.getString(first);
        if (owner == null) {
            return null;
        }
        return new StoredRecord(
                owner,
                row.getInt(first + 1) == 1,
                row.getBoolean(first + 2),
                row.getBoolean(first + 3),
                row.getString(first + 4),
                row.getBytes(first + 5),
                Duration.of(row.getLong(first + 6), ChronoUnit.MICROS));
    }

    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        return completeWith(sql.complete(), ownerParams(key, owner).bigint("retention_us", retentionMicros), key);
    }

    /** Keeps {@code result} in the record's {@code result} column, at most {@link #MAX_RESULT_BYTES}. */
    @Override
    public boolean complete(InboxKey key, OwnerToken owner, Duration retention, byte[] result) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long retentionMicros = Micros.of(requirePositive(retention, "retention"));
        requireResult(result, MAX_RESULT_BYTES, this);
        return completeWith(
                sql.completeWithResult(),
                ownerParams(key, owner).bigint("retention_us", retentionMicros).bytes("result", result),
                key);
    }

    /** {@value #MAX_RESULT_BYTES}: every duplicate's claim reads the result back. */
    @Override
    public int maxResultBytes() {
        return MAX_RESULT_BYTES;
    }

    private boolean completeWith(NamedSql statementSql, SqlParams params, InboxKey key) {
        return jdbc.execute("complete of " + key, connection -> {
            try (PreparedStatement statement = statementSql.prepare(connection, params)) {
                setTimeout(statement);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /**
     * Completes the batch with one statement per chunk of {@value #BATCH_CHUNK} distinct items. An
     * item repeated in the batch gets the answer of its first occurrence.
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
                        "completeAll of " + chunk.size() + " keys", c -> completeChunk(c, chunk, retentionMicros)));
    }

    private Set<HeldKey> completeChunk(Connection connection, List<HeldKey> chunk, long retentionMicros)
            throws SQLException {
        Set<HeldKey> done = new HashSet<>();
        int n = chunk.size();
        String[] consumers = new String[n];
        String[] keys = new String[n];
        String[] owners = new String[n];
        for (int j = 0; j < n; j++) {
            consumers[j] = chunk.get(j).key().consumer();
            keys[j] = chunk.get(j).key().id();
            owners[j] = chunk.get(j).owner().value();
        }
        SqlParams params = SqlParams.create()
                .array("consumers", connection.createArrayOf("text", consumers))
                .array("keys", connection.createArrayOf("text", keys))
                .array("owners", connection.createArrayOf("text", owners))
                .bigint("retention_us", retentionMicros)
                .bigint("grace_us", graceMicros);
        try (PreparedStatement statement = sql.completeBatch().prepare(connection, params)) {
            setTimeout(statement);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    done.add(chunk.get(rows.getInt(1) - 1));
                }
            }
        }
        return done;
    }

    @Override
    public boolean renew(InboxKey key, OwnerToken owner, Duration lease) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        long leaseMicros = Micros.of(requirePositive(lease, "lease"));
        return jdbc.execute("renewal of " + key, connection -> {
            try (PreparedStatement statement =
                    sql.renew().prepare(connection, ownerParams(key, owner).bigint("lease_us", leaseMicros))) {
                setTimeout(statement);
                return statement.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(InboxKey key, OwnerToken owner) {
        requireNonNull(key, "key");
        requireNonNull(owner, "owner");
        return jdbc.execute("release of " + key, connection -> {
            try (PreparedStatement statement = sql.release().prepare(connection, ownerParams(key, owner))) {
                setTimeout(statement);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /**
     * The operator's operations on this store's table, by the database's clock: inspect, release
     * and forget are one primary-key lookup or delete; a page of {@code stuck} walks the consumer's
     * part of the primary key from its cursor until it has the page; {@code count} reads all the
     * consumer's rows. Each runs in its own short transaction with the store's query timeout.
     *
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public InboxAdmin admin() {
        jdbc.ensureOpen();
        return new JdbcInboxAdmin(jdbc, sql.inboxTable(), JdbcInboxAdmin.Dialect.POSTGRES, queryTimeoutSeconds);
    }

    /**
     * Deletes the records past expiry + grace in batches of {@link Builder#purgeBatchSize(int)}
     * rows, oldest first, each its own short transaction, until a batch comes back short; each
     * batch starts at the purge instant where the one before it ended, after the rest {@link
     * Builder#purgeNiceRatio(double)} asks for. A row that a claim takes over while the purge runs is
     * kept. A purge interrupted while it rests returns the rows deleted so far.
     */
    @Override
    public long purge() {
        String operation = "purge of " + sql.inboxTable();
        long total = 0;
        Long from = null;
        while (true) {
            Long cursor = from;
            long start = System.nanoTime();
            long[] batch = jdbc.execute(operation, connection -> purgeBatch(connection, cursor));
            total += batch[0];
            if (batch[0] < purgeBatchSize || !purgePacing.rest(start)) {
                return total;
            }
            from = batch[1];
        }
    }

    /** One batch of the purge, from {@code fromMicros} on when not null: the rows deleted, and the last one's purge instant. */
    private long[] purgeBatch(Connection connection, @Nullable Long fromMicros) throws SQLException {
        SqlParams params = SqlParams.create().integer("batch_size", purgeBatchSize);
        NamedSql batch = sql.purgeBatch();
        if (fromMicros != null) {
            params.bigint("from_us", fromMicros);
            batch = sql.purgeBatchFrom();
        }
        try (PreparedStatement statement = batch.prepare(connection, params)) {
            setTimeout(statement);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return new long[] {row.getLong(1), row.getLong(2)};
            }
        }
    }

    /**
     * A {@link PostgresSequenceGuard} on the same data source, in this store's sequence table
     * (created by {@link #createSchemaIfMissing()}).
     */
    public PostgresSequenceGuard sequenceGuard() {
        jdbc.ensureOpen();
        return new PostgresSequenceGuard(new JdbcExecutor(dataSource), sql, queryTimeoutSeconds);
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
        return "PostgresInboxStore[" + sql.inboxTable() + "]";
    }

    /** Configures a {@link PostgresInboxStore}; each setter checks its argument at once. */
    public static final class Builder extends JdbcStoreBuilder<Builder> {

        private @Nullable Duration queryTimeout;
        private Duration lockWaitTimeout = Duration.ofSeconds(DEFAULT_LOCK_WAIT_SECONDS);

        private Builder(DataSource dataSource) {
            super(dataSource);
        }

        /**
         * The longest a transactional claim waits for a key that another open transaction holds
         * (a consumer hung inside its transaction), before it fails with a retryable {@link
         * InboxStoreException}; default {@value #DEFAULT_LOCK_WAIT_SECONDS} s, at least 1 ms. Set
         * as {@code lock_timeout} for the claim's statements only.
         *
         * @throws IllegalArgumentException if null, under 1 ms, or over {@link Integer#MAX_VALUE} ms
         */
        public Builder lockWaitTimeout(Duration lockWaitTimeout) {
            requirePositive(lockWaitTimeout, "lockWaitTimeout");
            InboxArguments.requireArgument(
                    lockWaitTimeout.toMillis() >= 1 && lockWaitTimeout.toMillis() <= Integer.MAX_VALUE,
                    "lockWaitTimeout must be between 1 ms and " + Integer.MAX_VALUE + " ms but was " + lockWaitTimeout);
            this.lockWaitTimeout = lockWaitTimeout;
            return this;
        }

        /**
         * How long one statement may run before the driver cancels it, at least 1 second; default
         * none. pgjdbc arms a timer for every statement that has a timeout, which costs about as
         * much as the claim's own work on a fast network, so prefer the data source's {@code
         * socketTimeout} or the server's {@code statement_timeout}, which bound a hung statement
         * too and cost nothing per call.
         *
         * @throws IllegalArgumentException if null or not positive
         */
        public Builder queryTimeout(Duration queryTimeout) {
            this.queryTimeout = requirePositive(queryTimeout, "queryTimeout");
            return this;
        }

        /** Builds the store; it does not touch the database until used. */
        public PostgresInboxStore build() {
            return new PostgresInboxStore(
                    dataSource,
                    new PostgresStatements(schema, table, sequenceTable),
                    grace,
                    purgeBatchSize,
                    purgePacing,
                    queryTimeout,
                    lockWaitTimeout);
        }
    }
}
