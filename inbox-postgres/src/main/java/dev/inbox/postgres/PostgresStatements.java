package dev.inbox.postgres;

import dev.inbox.jdbc.NamedSql;
import dev.inbox.jdbc.SqlIdentifier;
import dev.inbox.jdbc.SqlScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every SQL statement of the PostgreSQL store, built once from validated identifiers, with named
 * parameters ({@link NamedSql}): {@code :consumer}, {@code :key}, {@code :owner}, {@code
 * :fingerprint}, durations in microseconds ({@code :duration_us}, {@code :grace_us}, …). Values
 * are always bound as parameters, and every time is the database's {@code clock_timestamp()}.
 */
final class PostgresStatements {

    /** The columns a claim reads back to explain its answer, in this order. */
    private static final String RECORD_COLUMNS = "e.owner_token, e.state,"
            + " e.expires_at <= clock_timestamp() AS expired,"
            + " e.purge_after <= clock_timestamp() AS gone,"
            + " e.fingerprint, e.result,"
            + " (extract(epoch FROM clock_timestamp() - e.expires_at) * 1000000)::bigint AS past_expiry_us";

    /**
     * Takes the key when its record is past its own expiry + grace, or is an IN_PROGRESS lease that
     * is expired or already ours. A same-owner retry without fingerprint keeps the one it had.
     */
    private static final String ON_CONFLICT = " ON CONFLICT (consumer, dedup_key) DO UPDATE"
            + " SET owner_token = excluded.owner_token, state = excluded.state, expires_at = excluded.expires_at,"
            + " purge_after = excluded.purge_after, result = NULL,"
            + " fingerprint = CASE WHEN r.owner_token = excluded.owner_token AND excluded.fingerprint IS NULL"
            + " THEN r.fingerprint ELSE excluded.fingerprint END"
            + " WHERE r.purge_after <= clock_timestamp()"
            + " OR (r.state = 0 AND (r.owner_token = excluded.owner_token OR r.expires_at <= clock_timestamp()))";

    private final String inbox;
    private final String sequences;
    private final String purgeIndex;
    private final String oldExpiresIndex;
    private final String purgeIndexQualified;
    private final @Nullable String schema;
    private final NamedSql insertIfAbsent;
    private final NamedSql boundedInsertIfAbsent;
    private final NamedSql claimIfAbsent;
    private final NamedSql claim;
    private final NamedSql boundedClaimIfAbsent;
    private final NamedSql boundedClaim;
    private final NamedSql claimBatchIfAbsent;
    private final NamedSql boundedClaimBatchIfAbsent;
    private final NamedSql complete;
    private final NamedSql completeWithResult;
    private final NamedSql keepResult;
    private final NamedSql release;
    private final NamedSql renew;
    private final NamedSql completeBatch;
    private final NamedSql purgeBatch;
    private final NamedSql purgeBatchFrom;
    private final NamedSql advance;

    PostgresStatements(@Nullable SqlIdentifier schema, SqlIdentifier table, SqlIdentifier sequenceTable) {
        String prefix = schema == null ? "" : schema.quoted('"') + ".";
        this.schema = schema == null ? null : schema.quoted('"');
        this.inbox = prefix + table.quoted('"');
        this.sequences = prefix + sequenceTable.quoted('"');
        this.purgeIndex = '"' + truncated(table.name() + "_purge_after") + '"';
        this.purgeIndexQualified = prefix + purgeIndex;
        this.oldExpiresIndex = prefix + '"' + truncated(table.name() + "_expires_at") + '"';
        this.insertIfAbsent = NamedSql.of(insertIfAbsentText());
        this.boundedInsertIfAbsent = NamedSql.of(lockBounded(insertIfAbsentText()));
        this.claimIfAbsent = NamedSql.of(claimIfAbsentText());
        this.claim = NamedSql.of(claimText());
        this.boundedClaimIfAbsent = NamedSql.of(lockBounded(claimIfAbsentText()));
        this.boundedClaim = NamedSql.of(lockBounded(claimText()));
        this.claimBatchIfAbsent = NamedSql.of(claimBatchIfAbsentText());
        this.boundedClaimBatchIfAbsent = NamedSql.of(lockBounded(claimBatchIfAbsentText()));
        this.complete = NamedSql.of(completeText(""));
        this.completeWithResult =
                NamedSql.of(completeText(" result = CASE WHEN state = 0 THEN :result ELSE result END,"));
        this.release = NamedSql.of(releaseText());
        this.renew = NamedSql.of(renewText());
        this.keepResult = NamedSql.of("UPDATE " + inbox + " SET result = :result"
                + " WHERE consumer = :consumer AND dedup_key = :key AND state = 1 AND result IS NULL"
                + " AND purge_after > clock_timestamp()");
        this.completeBatch = NamedSql.of(completeBatchText());
        this.purgeBatch = NamedSql.of(purgeBatchText(false));
        this.purgeBatchFrom = NamedSql.of(purgeBatchText(true));
        this.advance = NamedSql.of(advanceText());
    }

    /** The new row of a claim: expiry after the lease or retention, purge after the grace too. */
    private static final String CLAIM_ROW =
            " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint)"
                    + " VALUES (:consumer, :key, :owner, :state,"
                    + " clock_timestamp() + :duration_us * interval '1 microsecond',"
                    + " clock_timestamp() + (:duration_us + :grace_us) * interval '1 microsecond', :fingerprint)";

    /**
     * {@code statement} with {@code lock_timeout} set to {@code :lock_timeout_ms} before it and
     * restored after it, in the caller's transaction: three statements that pgjdbc sends in one
     * round trip, whose second result is the statement's. The caller's own {@code lock_timeout} is
     * kept in the placeholder setting {@code inbox.lock_timeout} meanwhile (both are transaction-local);
     * if the statement fails, the transaction is aborted and the setting goes with it.
     */
    private static String lockBounded(String statement) {
        return "SELECT set_config('inbox.lock_timeout', current_setting('lock_timeout'), true),"
                + " set_config('lock_timeout', :lock_timeout_ms, true); "
                + statement
                + "; SELECT set_config('lock_timeout', current_setting('inbox.lock_timeout'), true)";
    }

    /** {@link #claimIfAbsent()} bounded by {@code :lock_timeout_ms}; see {@link #lockBounded(String)}. */
    NamedSql boundedClaimIfAbsent() {
        return boundedClaimIfAbsent;
    }

    /** {@link #claim()} bounded by {@code :lock_timeout_ms}; see {@link #lockBounded(String)}. */
    NamedSql boundedClaim() {
        return boundedClaim;
    }

    /** The qualified inbox table, for messages. */
    String inboxTable() {
        return inbox;
    }

    /**
     * A new key's claim and nothing else: {@code INSERT … ON CONFLICT DO NOTHING}, one row updated
     * when the key was new, none when a record is there (which {@link #claimIfAbsent()} then reads).
     * The same parameters as {@link #claimIfAbsent()}.
     */
    NamedSql insertIfAbsent() {
        return insertIfAbsent;
    }

    /** {@link #insertIfAbsent()} bounded by {@code :lock_timeout_ms}; see {@link #lockBounded(String)}. */
    NamedSql boundedInsertIfAbsent() {
        return boundedInsertIfAbsent;
    }

    /**
     * The fast path of a claim, which writes nothing unless the key is new: {@code INSERT … ON
     * CONFLICT DO NOTHING}, and when it conflicts, the record as the statement's snapshot saw it.
     * DUPLICATE and BUSY are decided from that record without locking or writing the row; a
     * record that could be taken (an expired lease, the same owner, past grace) or that the
     * snapshot cannot see (a concurrent insert) goes to {@link #claim()}. State is 0 for a lease,
     * 1 for a transactional claim; the duration is the lease or the retention. Returns one row
     * (taken, then the record), or none.
     */
    NamedSql claimIfAbsent() {
        return claimIfAbsent;
    }

    private String insertIfAbsentText() {
        return "INSERT INTO " + inbox + CLAIM_ROW + " ON CONFLICT (consumer, dedup_key) DO NOTHING";
    }

    private String claimIfAbsentText() {
        return "WITH taken AS (INSERT INTO " + inbox + CLAIM_ROW
                + " ON CONFLICT (consumer, dedup_key) DO NOTHING RETURNING 1)"
                + " SELECT true AS taken, NULL, NULL::smallint, NULL::boolean, NULL::boolean, NULL, NULL::bytea, NULL::bigint FROM taken"
                + " UNION ALL SELECT false, " + RECORD_COLUMNS + " FROM " + inbox + " AS e"
                + " WHERE e.consumer = :consumer AND e.dedup_key = :key AND NOT EXISTS (SELECT 1 FROM taken)";
    }

    /**
     * The full claim, which can take a record over; the same parameters as {@link
     * #claimIfAbsent()}. Returns one row: taken, then the record as the statement's snapshot saw it
     * (null when there was none).
     */
    NamedSql claim() {
        return claim;
    }

    private String claimText() {
        return "WITH taken AS (INSERT INTO " + inbox + " AS r" + CLAIM_ROW + ON_CONFLICT + " RETURNING 1)"
                + " SELECT (SELECT count(*) FROM taken) > 0 AS taken, " + RECORD_COLUMNS
                + " FROM (SELECT 1) AS one LEFT JOIN " + inbox + " AS e"
                + " ON e.consumer = :consumer AND e.dedup_key = :key";
    }

    /**
     * The fast path of a batch of claims in one round trip, inserting in array order (callers
     * sort it, so that concurrent batches lock rows in one order and cannot deadlock) and reading
     * back the records of the keys that conflicted. The arrays hold one element per key; {@code
     * :state} is 0 for leases, 1 for transactional claims (whose durations are the retention).
     * Returns one row per element, in order: ordinal, taken, the record as seen (null when taken, or
     * when the snapshot cannot see it).
     */
    NamedSql claimBatchIfAbsent() {
        return claimBatchIfAbsent;
    }

    /** {@link #claimBatchIfAbsent()} bounded by {@code :lock_timeout_ms}; see {@link #lockBounded(String)}. */
    NamedSql boundedClaimBatchIfAbsent() {
        return boundedClaimBatchIfAbsent;
    }

    private String claimBatchIfAbsentText() {
        return "WITH input AS (SELECT * FROM unnest(:consumers::text[], :keys::text[], :owners::text[],"
                + " :leases_us::bigint[], :fingerprints::text[])"
                + " WITH ORDINALITY AS i(consumer, dedup_key, owner_token, lease_us, fingerprint, ord)),"
                + " taken AS (INSERT INTO " + inbox
                + " (consumer, dedup_key, owner_token, state, expires_at, purge_after, fingerprint)"
                + " SELECT consumer, dedup_key, owner_token, :state,"
                + " clock_timestamp() + lease_us * interval '1 microsecond',"
                + " clock_timestamp() + (lease_us + :grace_us) * interval '1 microsecond', fingerprint"
                + " FROM input ORDER BY ord"
                + " ON CONFLICT (consumer, dedup_key) DO NOTHING RETURNING consumer, dedup_key)"
                + " SELECT i.ord, t.dedup_key IS NOT NULL AS taken, " + RECORD_COLUMNS
                + " FROM input AS i"
                + " LEFT JOIN taken AS t ON t.consumer = i.consumer AND t.dedup_key = i.dedup_key"
                // LATERAL … LIMIT 1 keeps the read-back a per-key primary-key lookup. Without it the
                // planner may flatten it into a hash join over a sequential scan, and a prepared
                // statement keeps that generic plan while the table grows (seen: 100-key batches
                // falling from 700/s to 30/s as the table filled).
                + " LEFT JOIN LATERAL (SELECT * FROM " + inbox + " AS x WHERE t.dedup_key IS NULL"
                + " AND x.consumer = i.consumer AND x.dedup_key = i.dedup_key LIMIT 1) AS e ON true"
                + " ORDER BY i.ord";
    }

    /**
     * IN_PROGRESS → COMPLETED for the owner, its purge moved to the retention's end + this
     * instance's grace; completing again keeps the first retention.
     */
    NamedSql complete() {
        return complete;
    }

    /** {@link #complete()} keeping {@code :result} with the record when it completes it. */
    NamedSql completeWithResult() {
        return completeWithResult;
    }

    private String completeText(String alsoSet) {
        return "UPDATE " + inbox + " SET" + alsoSet + " state = 1,"
                + " expires_at = CASE WHEN state = 0 THEN clock_timestamp() + :retention_us * interval '1 microsecond'"
                + " ELSE expires_at END,"
                + " purge_after = CASE WHEN state = 0"
                + " THEN clock_timestamp() + (:retention_us + :grace_us) * interval '1 microsecond'"
                + " ELSE purge_after END"
                + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner"
                + " AND purge_after > clock_timestamp()";
    }

    /**
     * {@link #complete()} for a batch in one statement: returns the position (from 1) of each item
     * whose owner holds (or completed) its record.
     */
    NamedSql completeBatch() {
        return completeBatch;
    }

    private String completeBatchText() {
        return "UPDATE " + inbox + " AS r SET state = 1,"
                + " expires_at = CASE WHEN r.state = 0"
                + " THEN clock_timestamp() + :retention_us * interval '1 microsecond' ELSE r.expires_at END,"
                + " purge_after = CASE WHEN r.state = 0"
                + " THEN clock_timestamp() + (:retention_us + :grace_us) * interval '1 microsecond'"
                + " ELSE r.purge_after END"
                + " FROM unnest(:consumers::text[], :keys::text[], :owners::text[]) WITH ORDINALITY"
                + " AS b(consumer, dedup_key, owner_token, i)"
                + " WHERE r.consumer = b.consumer AND r.dedup_key = b.dedup_key AND r.owner_token = b.owner_token"
                + " AND r.purge_after > clock_timestamp()"
                + " RETURNING b.i";
    }

    /** Sets the result of a COMPLETED record that keeps none (a transactional claim's). */
    NamedSql keepResult() {
        return keepResult;
    }

    /** Moves the end of the owner's IN_PROGRESS lease to {@code :lease_us} from now. */
    NamedSql renew() {
        return renew;
    }

    private String renewText() {
        return "UPDATE " + inbox + " SET expires_at = clock_timestamp() + :lease_us * interval '1 microsecond',"
                + " purge_after = clock_timestamp() + (:lease_us + :grace_us) * interval '1 microsecond'"
                + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner AND state = 0"
                + " AND purge_after > clock_timestamp()";
    }

    /** Deletes the owner's IN_PROGRESS record. */
    NamedSql release() {
        return release;
    }

    private String releaseText() {
        return "DELETE FROM " + inbox
                + " WHERE consumer = :consumer AND dedup_key = :key AND owner_token = :owner AND state = 0"
                + " AND purge_after > clock_timestamp()";
    }

    /**
     * Deletes at most one batch of records past their purge instant, oldest first. The outer condition
     * is checked again on the row's latest version, so a row that a claim took over meanwhile is
     * kept; no row lock is taken beforehand, which halves the writes of a purge. Returns one row:
     * the rows deleted, and the latest purge instant among them in epoch microseconds (null when
     * none), where {@link #purgeBatchFrom()} starts the next batch.
     */
    NamedSql purgeBatch() {
        return purgeBatch;
    }

    /**
     * {@link #purgeBatch()} from the purge instant {@code :from_us} (epoch microseconds, less one, as
     * a server whose {@code extract} is a double may round it) on: the
     * index scan starts there instead of walking the index entries of the rows the batches before
     * it deleted, which stay in the index until vacuum — without it, batch n walks n − 1 batches of
     * dead entries, and a purge of millions of rows spends most of its time there.
     *
     * <p>Both statements bound the scan by {@code (SELECT clock_timestamp())}, evaluated once: the
     * volatile {@code clock_timestamp()} itself cannot be an index condition, and as a filter it let
     * the last, short batch of every purge read every live row's entry and heap tuple to the end
     * of the index.
     */
    NamedSql purgeBatchFrom() {
        return purgeBatchFrom;
    }

    private String purgeBatchText(boolean from) {
        return "WITH purged AS (DELETE FROM " + inbox + " WHERE ctid = ANY (ARRAY(SELECT ctid FROM " + inbox
                + " WHERE "
                + (from ? "purge_after >= timestamptz 'epoch' + (:from_us - 1) * interval '1 microsecond' AND " : "")
                + "purge_after <= (SELECT clock_timestamp()) ORDER BY purge_after LIMIT :batch_size))"
                + " AND purge_after <= clock_timestamp() RETURNING purge_after)"
                + " SELECT count(*), (extract(epoch FROM max(purge_after)) * 1000000)::bigint FROM purged";
    }

    /**
     * Advances an entity's sequence when {@code seq} is next. Returns applied (0 or 1) and the last
     * applied number as the statement's snapshot saw it.
     */
    NamedSql advance() {
        return advance;
    }

    private String advanceText() {
        return "WITH updated AS (UPDATE " + sequences + " SET last_seq = :seq"
                + " WHERE consumer = :consumer AND entity = :entity AND last_seq = :seq - 1 RETURNING 1),"
                + " inserted AS (INSERT INTO " + sequences + " (consumer, entity, last_seq)"
                + " SELECT :consumer, :entity, :seq WHERE :seq = 1 ON CONFLICT (consumer, entity) DO NOTHING RETURNING 1)"
                + " SELECT (SELECT count(*) FROM updated) + (SELECT count(*) FROM inserted) AS applied,"
                + " (SELECT last_seq FROM " + sequences
                + " WHERE consumer = :consumer AND entity = :entity) AS last_seq";
    }

    /** Serialises concurrent schema creation across the fleet, on the lock named {@code :lock}. */
    NamedSql schemaLock() {
        return NamedSql.of("SELECT pg_advisory_xact_lock(hashtext(:lock))");
    }

    /** PostgreSQL cuts identifiers at 63 bytes; so do the index names (ASCII table names). */
    private static String truncated(String name) {
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    /** The DDL of {@code schema-v3.sql}, one statement per element, names filled in. */
    List<String> schemaDdl() {
        List<String> ddl = new ArrayList<>();
        if (schema != null) {
            ddl.add("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
        ddl.addAll(SqlScript.load(
                PostgresStatements.class,
                "schema-v3.sql",
                Map.of("inbox_purge_index", purgeIndex, "inbox", inbox, "sequences", sequences)));
        return ddl;
    }

    /**
     * The schema version of the inbox table {@code :table}: one row with 1 (no {@code purge_after}),
     * 2 (no {@code result}) or 3, or none when the table does not exist.
     */
    NamedSql schemaVersion() {
        return NamedSql.of("SELECT CASE WHEN count(*) FILTER (WHERE attname = 'purge_after') = 0 THEN 1"
                + " WHEN count(*) FILTER (WHERE attname = 'result') = 0 THEN 2 ELSE 3 END"
                + " FROM pg_attribute WHERE attrelid = to_regclass(:table) AND attnum > 0 AND NOT attisdropped"
                + " HAVING count(*) > 0");
    }

    /**
     * One row, true when the purge index and the sequence table exist: read from the catalog,
     * without locking either (DDL would: {@code CREATE INDEX IF NOT EXISTS} takes the table's SHARE
     * lock before it finds the index, and waits for every open transaction that wrote to it).
     */
    NamedSql schemaObjectsExist() {
        return NamedSql.of("SELECT to_regclass(:index) IS NOT NULL AND to_regclass(:sequences) IS NOT NULL");
    }

    String purgeIndexQualified() {
        return purgeIndexQualified;
    }

    String sequenceTableQualified() {
        return sequences;
    }

    /** The upgrade of a version 2 table. */
    List<String> upgradeV2ToV3() {
        return SqlScript.load(PostgresStatements.class, "upgrade-v2-to-v3.sql", Map.of("inbox", inbox));
    }

    /** The upgrade of a version 1 table, whose rows get {@code graceMicros} as their grace. */
    List<String> upgradeV1ToV2(long graceMicros) {
        return SqlScript.load(
                PostgresStatements.class,
                "upgrade-v1-to-v2.sql",
                Map.of(
                        "inbox_purge_index",
                        purgeIndex,
                        "inbox_expires_index_qualified",
                        oldExpiresIndex,
                        "inbox",
                        inbox,
                        "grace_us",
                        Long.toString(graceMicros)));
    }
}
