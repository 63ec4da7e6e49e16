package dev.inbox.jdbc;

import dev.inbox.InboxKey;
import dev.inbox.spi.InboxAdmin;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The admin operations of the SQL stores, on their inbox table and their {@link JdbcExecutor}: each
 * is one statement of its own short transaction, timed by the database's clock.
 *
 * <p>What each costs: {@code inspect}, {@code releaseLease} and {@code forget} are one primary-key
 * lookup or delete. {@code stuck} walks the consumer's part of the primary key from the cursor on
 * and filters by state and lease end, so a page costs the consumer's records it passes until it
 * has found {@code limit} (all of them, for a consumer with few stuck ones). {@code count} reads
 * every record of the consumer. None runs on the claim path.
 */
public final class JdbcInboxAdmin implements InboxAdmin {

    /**
     * What differs between the databases: the clock, time arithmetic, and how keys are typed.
     *
     * @param now the database's current time, by which the store decides expiry ({@code now()})
     * @param epochMicros SQL for a timestamp ({@code %s}) as microseconds since the epoch, a {@code
     *     bigint}
     * @param minusMicros SQL for a timestamp (the first {@code %s}) minus a {@code bigint} named
     *     parameter (the second {@code %s}, without its colon) of microseconds
     * @param binaryText true when consumers, keys, owners and fingerprints are binary columns holding
     *     UTF-8 ({@code VARBINARY})
     */
    public record Dialect(String now, String epochMicros, String minusMicros, boolean binaryText) {

        /** PostgreSQL: {@code now()}, {@code text} keys. */
        public static final Dialect POSTGRES = new Dialect(
                "now()",
                "floor(extract(epoch from %s) * 1000000)::bigint",
                "(%s - :%s * interval '1 microsecond')",
                false);

        /** MySQL and MariaDB: {@code UTC_TIMESTAMP(6)} into {@code DATETIME(6)} columns, {@code VARBINARY} keys. */
        public static final Dialect MYSQL = new Dialect(
                "UTC_TIMESTAMP(6)",
                "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', %s)",
                "(%s - INTERVAL :%s MICROSECOND)",
                true);

        String epochMicros(String timestamp) {
            return String.format(epochMicros, timestamp);
        }

        String minusMicros(String timestamp, String param) {
            return String.format(minusMicros, timestamp, param);
        }
    }

    private final JdbcExecutor jdbc;
    private final Dialect dialect;
    private final int queryTimeoutSeconds;
    private final NamedSql inspect;
    private final NamedSql stuck;
    private final NamedSql count;
    private final NamedSql releaseLease;
    private final NamedSql forget;

    /**
     * The admin of the inbox table {@code table} (quoted, optionally schema-qualified).
     *
     * @param queryTimeoutSeconds each statement's timeout, 0 for none
     * @throws IllegalArgumentException if an argument is null or the timeout negative
     */
    public JdbcInboxAdmin(JdbcExecutor jdbc, String table, Dialect dialect, int queryTimeoutSeconds) {
        this.jdbc = InboxArguments.requireNonNull(jdbc, "jdbc");
        this.dialect = InboxArguments.requireNonNull(dialect, "dialect");
        InboxArguments.requireNonNull(table, "table");
        InboxArguments.requireArgument(queryTimeoutSeconds >= 0, "queryTimeoutSeconds must not be negative");
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        String now = dialect.now();
        String columns = "SELECT dedup_key, owner_token, state, " + dialect.epochMicros("expires_at") + ", "
                + dialect.epochMicros("purge_after") + ", fingerprint, octet_length(result), "
                + dialect.epochMicros(now) + " FROM " + table;
        String live = " AND purge_after > " + now;
        String key = " WHERE consumer = :consumer AND dedup_key = :key";
        this.inspect = NamedSql.of(columns + key);
        this.stuck = NamedSql.of(columns + " WHERE consumer = :consumer AND dedup_key > :after AND state = 0"
                + " AND expires_at <= " + dialect.minusMicros(now, "overdue_us") + live
                + " ORDER BY dedup_key LIMIT :page_size");
        this.count = NamedSql.of("SELECT " + sum("purge_after > " + now + " AND state = 0 AND expires_at > " + now)
                + ", " + sum("purge_after > " + now + " AND state = 0 AND expires_at <= " + now)
                + ", " + sum("purge_after > " + now + " AND state = 1 AND expires_at > " + now)
                + ", " + sum("purge_after > " + now + " AND state = 1 AND expires_at <= " + now)
                + ", " + sum("purge_after <= " + now)
                + " FROM " + table + " WHERE consumer = :consumer");
        this.releaseLease = NamedSql.of("DELETE FROM " + table + key + " AND state = 0" + live);
        this.forget = NamedSql.of("DELETE FROM " + table + key + live);
    }

    private static String sum(String condition) {
        return "COALESCE(SUM(CASE WHEN " + condition + " THEN 1 ELSE 0 END), 0)";
    }

    @Override
    public Optional<RecordView> inspect(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        return jdbc.execute("inspection of " + key, connection -> {
            try (PreparedStatement statement = prepare(inspect, connection, keyParams(key));
                    ResultSet rows = statement.executeQuery()) {
                return rows.next() ? Optional.of(view(key.consumer(), rows)) : Optional.empty();
            }
        });
    }

    @Override
    public List<RecordView> stuck(StuckQuery query) {
        InboxArguments.requireNonNull(query, "query");
        String after = query.after();
        SqlParams params = text(SqlParams.create(), "consumer", query.consumer())
                .bigint("overdue_us", Micros.of(query.overdue()))
                .integer("page_size", query.limit());
        text(params, "after", after == null ? "" : after);
        return jdbc.execute("listing of the stuck records of " + query.consumer(), connection -> {
            try (PreparedStatement statement = prepare(stuck, connection, params);
                    ResultSet rows = statement.executeQuery()) {
                List<RecordView> page = new ArrayList<>();
                while (rows.next()) {
                    page.add(view(query.consumer(), rows));
                }
                return page;
            }
        });
    }

    @Override
    public RecordCounts count(String consumer) {
        InboxKey.validate(consumer, "consumer");
        return jdbc.execute("count of the records of " + consumer, connection -> {
            try (PreparedStatement statement =
                            prepare(count, connection, text(SqlParams.create(), "consumer", consumer));
                    ResultSet rows = statement.executeQuery()) {
                rows.next();
                return new RecordCounts(
                        rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5));
            }
        });
    }

    @Override
    public boolean releaseLease(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        return delete("release of the lease of " + key, releaseLease, key);
    }

    @Override
    public boolean forget(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        return delete("forgetting " + key, forget, key);
    }

    private boolean delete(String operation, NamedSql sql, InboxKey key) {
        return jdbc.execute(operation, connection -> {
            try (PreparedStatement statement = prepare(sql, connection, keyParams(key))) {
                return statement.executeUpdate() == 1;
            }
        });
    }

    private PreparedStatement prepare(NamedSql sql, java.sql.Connection connection, SqlParams params)
            throws SQLException {
        PreparedStatement statement = sql.prepare(connection, params);
        if (queryTimeoutSeconds > 0) {
            statement.setQueryTimeout(queryTimeoutSeconds);
        }
        return statement;
    }

    private SqlParams keyParams(InboxKey key) {
        return text(text(SqlParams.create(), "consumer", key.consumer()), "key", key.id());
    }

    private SqlParams text(SqlParams params, String name, String value) {
        return dialect.binaryText()
                ? params.bytes(name, value.getBytes(StandardCharsets.UTF_8))
                : params.text(name, value);
    }

    private @Nullable String string(ResultSet rows, int column) throws SQLException {
        if (!dialect.binaryText()) {
            return rows.getString(column);
        }
        byte[] bytes = rows.getBytes(column);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private RecordView view(String consumer, ResultSet rows) throws SQLException {
        long resultBytes = rows.getLong(7);
        boolean hasResult = !rows.wasNull();
        return RecordView.ofMillis(
                InboxKey.of(consumer, string(rows, 1)),
                rows.getInt(3) == 1,
                string(rows, 2),
                Math.floorDiv(rows.getLong(8), 1000L),
                Math.floorDiv(rows.getLong(4), 1000L),
                Math.floorDiv(rows.getLong(5), 1000L),
                string(rows, 6),
                hasResult ? (int) resultBytes : null);
    }
}
