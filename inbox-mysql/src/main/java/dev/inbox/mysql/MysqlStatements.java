package dev.inbox.mysql;

import dev.inbox.jdbc.NamedSql;
import dev.inbox.jdbc.SqlIdentifier;
import dev.inbox.jdbc.SqlScript;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Every SQL statement of the MySQL/MariaDB store, built once from validated identifiers, with named
 * parameters ({@link NamedSql}). Values are always bound as parameters (keys as bytes), durations
 * travel as microseconds ({@code :grace_us}, …) and every time is the server's {@code
 * UTC_TIMESTAMP(6)}.
 *
 * <p>MySQL has no {@code RETURNING}, and what {@code executeUpdate} counts for {@code ON DUPLICATE
 * KEY UPDATE} depends on the driver's {@code useAffectedRows} setting, which belongs to the
 * caller's data source. So the claim reports what a conflicting row holds through {@code
 * LAST_INSERT_ID(code)}: the server returns that value in the statement's OK packet, whatever the
 * settings. A new row reports 0; a conflict reports {@link #CONFLICT} plus the bits below, from the
 * row's values, and changes nothing: the single assignment assigns the row's own state. Taking a
 * row over (rare: an expired lease, the same owner's retry, a record past grace) is a second,
 * conditioned statement, {@link #take()}. The statement is short on purpose: Connector/J sends its
 * text with every execution (client-side prepared statements, the driver's default), and MySQL
 * parses it each time.
 */
final class MysqlStatements {

    static final long CONFLICT = 2;
    static final long COMPLETED = 4;
    static final long GONE = 16;
    static final long SAME_OWNER = 32;
    /** Fingerprint comparison, two bits: 0 not compared, 1 match, 2 mismatch. */
    static final long FINGERPRINT_SHIFT = 6;
    /** The record keeps a result (read with {@link #resultOf()} when the answer is DUPLICATE). */
    static final long HAS_RESULT = 256;
    /**
     * The bits from here on hold how far the server's clock is past the record's expiry, in
     * microseconds, plus {@link #PAST_EXPIRY_OFFSET} (so that a record still before its expiry
     * reports a positive number too).
     */
    static final long PAST_EXPIRY_SHIFT = 9;
    /** 2^52 µs, about 142 years: more than any record lives or lies ahead. */
    static final long PAST_EXPIRY_OFFSET = 1L << 52;

    /** The row's values as the sum of the bits above, coded as {@link MysqlCodec#decode(long)} reads it. */
    private static final String CODE = CONFLICT
            + " + " + COMPLETED + " * state"
            + " + " + GONE + " * (purge_after <= UTC_TIMESTAMP(6))"
            + " + " + SAME_OWNER + " * (owner_token = VALUES(owner_token))"
            // NULL when either fingerprint is missing: 0; else 1 when equal, 2 when not
            + " + " + (1L << FINGERPRINT_SHIFT) + " * IFNULL(2 - (fingerprint = VALUES(fingerprint)), 0)"
            + " + " + HAS_RESULT + " * (result IS NOT NULL)"
            + " + " + (1L << PAST_EXPIRY_SHIFT)
            + " * (TIMESTAMPDIFF(MICROSECOND, expires_at, UTC_TIMESTAMP(6)) + " + PAST_EXPIRY_OFFSET + ")";

    /** Reports the code and leaves the row as it is. */
    private static final String ON_DUPLICATE =
            " ON DUPLICATE KEY UPDATE state = IF(LAST_INSERT_ID(" + CODE + "), state, state)";

    /**
     * What {@link #claimNew()} reports for a key that was there: only that, so that its text stays
     * short (MySQL parses the whole statement, {@link #CODE} included, even for a new row). Not a
     * code {@link MysqlCodec#decode(long)} reads: those start at {@link #CONFLICT}.
     */
    static final long THERE = 1;

    private static final String ON_DUPLICATE_THERE =
            " ON DUPLICATE KEY UPDATE state = IF(LAST_INSERT_ID(" + THERE + "), state, state)";

    /**
     * In a batch, each conflicting row adds one to {@code LAST_INSERT_ID}, so the statement reports
     * how many rows conflicted (0: every key was new, and nothing needs reading back). A row that
     * is the same owner's IN_PROGRESS lease (a retried batch) gets the new lease and fingerprint,
     * as a single retry does; any other conflicting row stays as it is. MySQL assigns left to
     * right: {@code state} and {@code owner_token} are not changed, so every condition reads the
     * row as it was.
     */
    private static final String ON_DUPLICATE_IN_BATCH = " ON DUPLICATE KEY UPDATE"
            + " state = IF(LAST_INSERT_ID(LAST_INSERT_ID() + 1), state, state),"
            + " fingerprint = IF(state = 0 AND owner_token = VALUES(owner_token) AND VALUES(fingerprint) IS NOT NULL,"
            + " VALUES(fingerprint), fingerprint),"
            + " expires_at = IF(state = 0 AND owner_token = VALUES(owner_token), VALUES(expires_at), expires_at),"
            + " purge_after = IF(state = 0 AND owner_token = VALUES(owner_token), VALUES(purge_after), purge_after)";

    /**
     * One row to insert. In the first row {@code LAST_INSERT_ID(0)} runs before the duplicate
     * check, so a new row reports 0 even though the connection still holds the code of an earlier
     * conflict (MySQL reports that held value for any statement that calls {@code
     * LAST_INSERT_ID(expr)}); later rows of a batch leave it to count the conflicts.
     */
    private static String row(int i) {
        return "(:consumer_" + i + ", :key_" + i + ", :owner_" + i + ", :state_" + i
                + (i == 0 ? " + LAST_INSERT_ID(0)," : ",")
                + " UTC_TIMESTAMP(6) + INTERVAL :duration_us_" + i + " MICROSECOND,"
                + " UTC_TIMESTAMP(6) + INTERVAL (:duration_us_" + i + " + :grace_us) MICROSECOND, :fingerprint_" + i
                + ")";
    }

    private final String inbox;
    private final String sequences;
    private final String purgeIndex;
    private final String oldExpiresIndex;
    private final @Nullable String schema;
    private final Map<Integer, NamedSql> claims = new ConcurrentHashMap<>();
    private final Map<Integer, NamedSql> readBacks = new ConcurrentHashMap<>();
    private final Map<Integer, NamedSql> lockingReadBacks = new ConcurrentHashMap<>();
    private final Map<Integer, NamedSql> boundedClaims = new ConcurrentHashMap<>();
    private final Map<Integer, NamedSql> completeBatches = new ConcurrentHashMap<>();
    private final Map<Integer, NamedSql> completedBatches = new ConcurrentHashMap<>();
    private final NamedSql take;
    private final NamedSql claimNew;
    private final NamedSql complete;
    private final NamedSql completeWithResult;
    private final NamedSql resultOf;
    private final NamedSql keepResult;
    private final NamedSql resultColumn;
    private final NamedSql completedBy;
    private final NamedSql release;
    private final NamedSql renew;
    private final NamedSql purgeBatch;
    private final NamedSql advanceFirst;
    private final NamedSql advanceNext;
    private final NamedSql lastApplied;
    private final NamedSql purgeAfterColumn;
    private final NamedSql tableExists;

    MysqlStatements(@Nullable SqlIdentifier schema, SqlIdentifier table, SqlIdentifier sequenceTable) {
        String prefix = schema == null ? "" : schema.quoted('`') + ".";
        this.schema = schema == null ? null : schema.quoted('`');
        this.inbox = prefix + table.quoted('`');
        this.sequences = prefix + sequenceTable.quoted('`');
        this.purgeIndex = '`' + truncated(table.name() + "_purge_after") + '`';
        this.oldExpiresIndex = '`' + truncated(table.name() + "_expires_at") + '`';
        String database = schema == null ? "DATABASE()" : "'" + schema.name() + "'";
        this.purgeAfterColumn = NamedSql.of("SELECT IS_NULLABLE FROM information_schema.columns"
                + " WHERE table_schema = " + database + " AND table_name = '" + table.name() + "'"
                + " AND column_name = 'purge_after'");
        this.resultColumn = NamedSql.of("SELECT 1 FROM information_schema.columns"
                + " WHERE table_schema = " + database + " AND table_name = '" + table.name() + "'"
                + " AND column_name = 'result'");
        this.tableExists = NamedSql.of("SELECT 1 FROM information_schema.tables" + " WHERE table_schema = " + database
                + " AND table_name = '" + table.name() + "'");
        this.claimNew = NamedSql.of(claimNewText());
        this.take = NamedSql.of("UPDATE " + inbox + " SET"
                + " fingerprint = IF(owner_token = :owner_0 AND :fingerprint_0 IS NULL, fingerprint, :fingerprint_0),"
                + " owner_token = :owner_0, state = :state_0,"
                + " expires_at = UTC_TIMESTAMP(6) + INTERVAL :duration_us_0 MICROSECOND,"
                + " purge_after = UTC_TIMESTAMP(6) + INTERVAL (:duration_us_0 + :grace_us) MICROSECOND, result = NULL"
                + " WHERE consumer = :consumer_0 AND dedup_key = :key_0 AND (purge_after <= UTC_TIMESTAMP(6)"
                + " OR (state = 0 AND (owner_token = :owner_0 OR expires_at <= UTC_TIMESTAMP(6))))");
        // MySQL assigns left to right: state changes last, so the others still read the old state.
        this.complete = NamedSql.of(completeText(""));
        this.completeWithResult = NamedSql.of(completeText(" result = IF(state = 0, :result, result),"));
        this.keepResult = NamedSql.of("UPDATE " + inbox + " SET result = :result"
                + " WHERE consumer = :consumer AND dedup_key = :key AND state = 1 AND result IS NULL"
                + " AND purge_after > UTC_TIMESTAMP(6)");
        this.resultOf = NamedSql.of("SELECT result FROM " + inbox
                + " WHERE consumer = :consumer AND dedup_key = :key AND state = 1 AND purge_after > UTC_TIMESTAMP(6)"
                // a locking read sees the latest committed row, also inside a REPEATABLE READ transaction
                + " LOCK IN SHARE MODE");
        this.completedBy = NamedSql.of("SELECT 1 FROM " + inbox
                + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner AND state = 1"
                + " AND purge_after > UTC_TIMESTAMP(6)");
        this.release = NamedSql.of("DELETE FROM " + inbox
                + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner AND state = 0"
                + " AND purge_after > UTC_TIMESTAMP(6)");
        this.renew =
                NamedSql.of("UPDATE " + inbox + " SET expires_at = UTC_TIMESTAMP(6) + INTERVAL :lease_us MICROSECOND,"
                        + " purge_after = UTC_TIMESTAMP(6) + INTERVAL (:lease_us + :grace_us) MICROSECOND"
                        + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner AND state = 0"
                        + " AND purge_after > UTC_TIMESTAMP(6)");
        this.purgeBatch = NamedSql.of("DELETE FROM " + inbox
                + " WHERE purge_after <= UTC_TIMESTAMP(6) ORDER BY purge_after LIMIT :batch_size");
        this.advanceFirst = NamedSql.of("INSERT INTO " + sequences + " (consumer, entity, last_seq)"
                + " VALUES (:consumer, :entity, 1 + LAST_INSERT_ID(0))"
                + " ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1) - 1");
        this.advanceNext = NamedSql.of("UPDATE " + sequences + " SET last_seq = :seq"
                + " WHERE consumer = :consumer AND entity = :entity AND last_seq = :seq - 1");
        this.lastApplied =
                NamedSql.of("SELECT last_seq FROM " + sequences + " WHERE consumer = :consumer AND entity = :entity");
    }

    private String completeText(String alsoSet) {
        return completeText(alsoSet, "consumer = :consumer AND dedup_key = :key AND owner_token = :owner");
    }

    private String completeText(String alsoSet, String which) {
        return "UPDATE " + inbox + " SET" + alsoSet + " expires_at = IF(state = 0,"
                + " UTC_TIMESTAMP(6) + INTERVAL :retention_us MICROSECOND, expires_at),"
                + " purge_after = IF(state = 0,"
                + " UTC_TIMESTAMP(6) + INTERVAL (:retention_us + :grace_us) MICROSECOND, purge_after), state = 1"
                + " WHERE " + which + " AND purge_after > UTC_TIMESTAMP(6)";
    }

    /**
     * {@link #complete()} for {@code rows} items at once: item {@code i} binds {@code
     * :consumer_i}, {@code :key_i} and {@code :owner_i}; all share {@code :retention_us} and {@code
     * :grace_us}. The row-constructor {@code IN} is a primary-key range lookup, so rows are locked
     * in key order and concurrent batches cannot deadlock.
     */
    NamedSql completeBatch(int rows) {
        return completeBatches.computeIfAbsent(
                rows,
                n -> NamedSql.of(completeText("", "(consumer, dedup_key, owner_token) IN (" + tuples(n, true) + ")")));
    }

    /**
     * After {@link #completeBatch(int)} in the same transaction: the keys of the {@code rows}
     * items ({@code :consumer_i}, {@code :key_i}) that are COMPLETED and not past grace, with their
     * owner — the items whose owner it is are done, as {@link #completedBy()} tells for one.
     */
    NamedSql completedBatch(int rows) {
        return completedBatches.computeIfAbsent(
                rows,
                n -> NamedSql.of("SELECT consumer, dedup_key, owner_token FROM " + inbox
                        + " WHERE (consumer, dedup_key) IN (" + tuples(n, false) + ")"
                        + " AND state = 1 AND purge_after > UTC_TIMESTAMP(6)"));
    }

    private static String tuples(int rows, boolean withOwner) {
        StringBuilder tuples = new StringBuilder();
        for (int i = 0; i < rows; i++) {
            tuples.append(i == 0 ? "" : ", ")
                    .append("(:consumer_")
                    .append(i)
                    .append(", :key_")
                    .append(i)
                    .append(withOwner ? ", :owner_" + i : "")
                    .append(')');
        }
        return tuples.toString();
    }

    String inboxTable() {
        return inbox;
    }

    /**
     * Claims {@code rows} keys: row {@code i} binds {@code :consumer_i}, {@code :key_i}, {@code
     * :owner_i}, {@code :state_i} (0 lease, 1 transactional), {@code :duration_us_i} and {@code
     * :fingerprint_i}; all rows share {@code :grace_us}. The OK packet's last insert id is, for
     * one row, its code (0 for a new one), for several, how many of them conflicted.
     */
    NamedSql claim(int rows) {
        return claims.computeIfAbsent(rows, n -> NamedSql.of(claimText(n)));
    }

    private String claimText(int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO ")
                .append(inbox)
                .append(" (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint) VALUES ")
                .append(row(0));
        for (int i = 1; i < rows; i++) {
            sql.append(", ").append(row(i));
        }
        return sql.append(rows == 1 ? ON_DUPLICATE : ON_DUPLICATE_IN_BATCH).toString();
    }

    /**
     * {@link #claim(int) claim(1)} for a key that is most likely new: the same row inserted, and for
     * a key that was there the row left as it is and only {@link #THERE} reported, for {@code
     * claim(1)} to decide. A text without {@link #CODE}: a new key costs the server what {@code
     * INSERT IGNORE} does ({@code benchmarks/results/mysql-claim-shapes.txt}), without hiding an
     * error as {@code IGNORE} would.
     */
    NamedSql claimNew() {
        return claimNew;
    }

    /** {@link #claimNew()} with MariaDB's per-statement lock wait, as {@link #claimWithLockWait(int)}. */
    NamedSql claimNewWithLockWait(int seconds) {
        return NamedSql.of("SET STATEMENT innodb_lock_wait_timeout=" + seconds + " FOR " + claimNewText());
    }

    private String claimNewText() {
        return "INSERT INTO " + inbox
                + " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint) VALUES " + row(0)
                + ON_DUPLICATE_THERE;
    }

    /**
     * Takes the row of {@link #claim(int) claim(1)}'s parameters over when it still may be taken:
     * past its expiry + grace, or an IN_PROGRESS lease that is expired or the same owner's. Counts
     * one row when it took it, none when the row changed since the claim read it. A same-owner
     * retry without a fingerprint keeps the one it had ({@code fingerprint} is assigned first,
     * while {@code owner_token} is still the old one: MySQL assigns left to right).
     */
    NamedSql take() {
        return take;
    }

    /**
     * {@link #claim(int) claim(1)} with {@code innodb_lock_wait_timeout} set for this statement
     * alone, by MariaDB's {@code SET STATEMENT … FOR}: no round trip and nothing to restore.
     */
    NamedSql claimWithLockWait(int seconds) {
        return NamedSql.of("SET STATEMENT innodb_lock_wait_timeout=" + seconds + " FOR " + claimText(1));
    }

    /** {@link #claim(int) claim(rows)} with MariaDB's per-statement lock wait, as {@link #claimWithLockWait(int)}. */
    NamedSql claimWithLockWait(int rows, int seconds) {
        return boundedClaims.computeIfAbsent(
                rows, n -> NamedSql.of("SET STATEMENT innodb_lock_wait_timeout=" + seconds + " FOR " + claimText(n)));
    }

    /** Sets the session's {@code innodb_lock_wait_timeout}, keeping its value in {@code @inbox_lock_wait}. */
    static String setLockWait(int seconds) {
        return "SET @inbox_lock_wait = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = "
                + seconds;
    }

    /** Restores what {@link #setLockWait(int)} kept. */
    static final String RESTORE_LOCK_WAIT = "SET SESSION innodb_lock_wait_timeout = @inbox_lock_wait";

    /**
     * Reads back the records of {@code rows} keys ({@code :key_0} …) of one consumer after a
     * batch.
     */
    NamedSql readBack(int rows) {
        return readBacks.computeIfAbsent(rows, n -> NamedSql.of(readBackText(n)));
    }

    /**
     * {@link #readBack(int)} as a locking read: the latest committed rows, also inside a REPEATABLE
     * READ transaction (the rows a batch conflicted on are locked by it already).
     */
    NamedSql lockingReadBack(int rows) {
        return lockingReadBacks.computeIfAbsent(rows, n -> NamedSql.of(readBackText(n) + " LOCK IN SHARE MODE"));
    }

    private String readBackText(int rows) {
        StringBuilder sql = new StringBuilder("SELECT dedup_key, owner_token, state,"
                        + " expires_at <= UTC_TIMESTAMP(6),"
                        + " purge_after <= UTC_TIMESTAMP(6), fingerprint, result,"
                        + " TIMESTAMPDIFF(MICROSECOND, expires_at, UTC_TIMESTAMP(6)) FROM ")
                .append(inbox)
                .append(" WHERE consumer = :consumer AND dedup_key IN (:key_0");
        for (int i = 1; i < rows; i++) {
            sql.append(", :key_").append(i);
        }
        return sql.append(')').toString();
    }

    /**
     * IN_PROGRESS → COMPLETED for the owner, keeping the first retention on a repeat. Counts one
     * row when it completed the record; a repeat counts one or none depending on the driver's
     * {@code useAffectedRows}, which {@link #completedBy()} then settles.
     */
    NamedSql complete() {
        return complete;
    }

    /** {@link #complete()} keeping {@code :result} with the record when it completes it. */
    NamedSql completeWithResult() {
        return completeWithResult;
    }

    /** Sets the result of a COMPLETED record that keeps none (a transactional claim's). */
    NamedSql keepResult() {
        return keepResult;
    }

    /**
     * The result of {@code :consumer}/{@code :key}'s COMPLETED record, not past grace: no row when
     * the record changed since the claim read it.
     */
    NamedSql resultOf() {
        return resultOf;
    }

    /**
     * Whether the owner's record is COMPLETED and not past grace: after an update that counted no
     * row, this tells a harmless repeat from a stranger.
     */
    NamedSql completedBy() {
        return completedBy;
    }

    /** Moves the end of the owner's IN_PROGRESS lease to {@code :lease_us} from now. */
    NamedSql renew() {
        return renew;
    }

    /** Deletes the owner's IN_PROGRESS record. */
    NamedSql release() {
        return release;
    }

    /** Deletes one batch of records past their purge instant, oldest first. */
    NamedSql purgeBatch() {
        return purgeBatch;
    }

    /**
     * The first number of an entity: inserts it, or on conflict leaves the row as it is and reports
     * last_seq + 1 (the expected number) as the last insert id.
     */
    NamedSql advanceFirst() {
        return advanceFirst;
    }

    /** Advances an entity from {@code :seq} - 1 to {@code :seq}. */
    NamedSql advanceNext() {
        return advanceNext;
    }

    /** The last applied number of an entity. */
    NamedSql lastApplied() {
        return lastApplied;
    }

    /** MySQL allows 64 characters in an index name (table names here are ASCII). */
    private static String truncated(String name) {
        return name.length() > 64 ? name.substring(0, 64) : name;
    }

    /** The DDL of {@code schema-v3.sql}, names filled in. */
    List<String> schemaDdl() {
        List<String> ddl = new java.util.ArrayList<>();
        if (schema != null) {
            ddl.add("CREATE DATABASE IF NOT EXISTS " + schema);
        }
        ddl.addAll(SqlScript.load(
                MysqlStatements.class,
                "schema-v3.sql",
                Map.of("inbox_purge_index", purgeIndex, "inbox", inbox, "sequences", sequences)));
        return ddl;
    }

    /** Whether the inbox table exists: one row, or none. */
    NamedSql tableExists() {
        return tableExists;
    }

    /** {@code IS_NULLABLE} of the {@code purge_after} column: no row on a version 1 table. */
    NamedSql purgeAfterColumn() {
        return purgeAfterColumn;
    }

    /** Whether the {@code result} column exists: no row on a version 1 or 2 table. */
    NamedSql resultColumn() {
        return resultColumn;
    }

    /** The upgrade of a version 2 table. */
    List<String> upgradeV2ToV3() {
        return SqlScript.load(MysqlStatements.class, "upgrade-v2-to-v3.sql", Map.of("inbox", inbox));
    }

    /**
     * The upgrade of a version 1 table, whose rows get {@code graceMicros} as their grace; the
     * first statement adds the column.
     */
    List<String> upgradeV1ToV2(long graceMicros) {
        return SqlScript.load(
                MysqlStatements.class,
                "upgrade-v1-to-v2.sql",
                Map.of(
                        "inbox_purge_index",
                        purgeIndex,
                        "inbox_expires_index",
                        oldExpiresIndex,
                        "inbox",
                        inbox,
                        "grace_us",
                        Long.toString(graceMicros)));
    }

    /** Serialises schema creation across the fleet (DDL commits on its own in MySQL). */
    NamedSql schemaLock() {
        return NamedSql.of("SELECT GET_LOCK(:lock, 60)");
    }

    NamedSql schemaUnlock() {
        return NamedSql.of("SELECT RELEASE_LOCK(:lock)");
    }
}
