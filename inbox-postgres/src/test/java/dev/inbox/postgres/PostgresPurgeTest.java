package dev.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The purge's cost in index pages, read from PostgreSQL's own statistics: each batch starts where
 * the one before it ended and stops at the first live entry, so a purge reads the expired part of
 * the {@code purge_after} index about once, however many batches it takes and however many live
 * rows the table holds. Two faults this catches: every batch starting at the oldest entry walked
 * the entries of the rows the batches before it had deleted (they stay in the index until
 * vacuum), batch n reading n − 1 batches of dead entries; and a bound of the volatile {@code
 * clock_timestamp()}, which cannot be an index condition, let the last, short batch read every
 * live row to the end of the index. At 10 million rows they cost seconds a purge
 * ({@code benchmarks/results/purge-under-load-postgres.json}).
 */
class PostgresPurgeTest {

    private static final String TABLE = "inbox_purge_walk";
    private static final int ROWS = 20_000;
    private static final int LIVE = 100_000;
    private static final int BATCH = 500;

    @Test
    void aPurgeOfManyBatches_readsEachIndexPageAboutOnce_notTheDeletedRowsAgainPerBatch() throws Exception {
        try (HikariDataSource one = PostgresTestDatabase.pool(1, true)) {
            PostgresTestDatabase.execute("DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_sequence");
            PostgresInboxStore store = PostgresInboxStore.builder(one)
                    .table(TABLE)
                    .sequenceTable(TABLE + "_sequence")
                    .grace(Duration.ZERO)
                    .purgeBatchSize(BATCH)
                    .build();
            store.createSchemaIfMissing();
            PostgresTestDatabase.execute(
                    "ALTER TABLE " + TABLE + " SET (autovacuum_enabled = false)",
                    "INSERT INTO " + TABLE + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                            + " SELECT 'walk', 'k-' || g, 'owner', 1, t, t FROM (SELECT g, now() - interval '1 day'"
                            + " + g * interval '1 millisecond' AS t FROM generate_series(1, " + ROWS
                            + ") AS g) AS rows",
                    "INSERT INTO " + TABLE + " (consumer, dedup_key, owner_token, state, expires_at, purge_after)"
                            + " SELECT 'walk', 'live-' || g, 'owner', 1, now() + interval '1 day',"
                            + " now() + interval '1 day' + g * interval '1 millisecond' FROM generate_series(1, " + LIVE
                            + ") AS g",
                    "VACUUM ANALYZE " + TABLE);
            long pages;
            try (Connection c = one.getConnection();
                    Statement s = c.createStatement();
                    ResultSet r = s.executeQuery("SELECT pg_relation_size('" + TABLE + "_purge_after') / 8192")) {
                r.next();
                pages = r.getLong(1);
            }
            long before = indexPagesRead(one);
            assertThat(store.purge()).isEqualTo(ROWS);
            long read = indexPagesRead(one) - before;

            int statements = ROWS / BATCH + 1;
            long expiredPages = pages * ROWS / (ROWS + LIVE);
            // Once through the expired part, plus a descent from the root per statement. Walking the
            // dead entries again per batch reads about statements / 2 times that part; reading to the
            // end of the index reads the live part, five times as large, too.
            assertThat(read)
                    .as(
                            "index pages read by a purge of %d statements over %d pages of expired entries",
                            statements, expiredPages)
                    .isLessThan(2 * expiredPages + 4L * statements);
            store.close();
        } finally {
            PostgresTestDatabase.execute("DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_sequence");
        }
    }

    /**
     * The pages of the {@code purge_after} index this pool's one backend has read, its statistics
     * flushed first.
     */
    private static long indexPagesRead(HikariDataSource one) throws SQLException, InterruptedException {
        try (Connection c = one.getConnection();
                Statement s = c.createStatement()) {
            boolean flushes;
            try (ResultSet r = s.executeQuery("SELECT current_setting('server_version_num')::int >= 150000")) {
                r.next();
                flushes = r.getBoolean(1);
            }
            if (flushes) {
                s.execute("SELECT pg_stat_force_next_flush()"); // PostgreSQL 15: at this statement's end
            } else {
                Thread.sleep(1_500); // older servers: the statistics collector's next report
            }
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet r = s.executeQuery("SELECT coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0)"
                    + " FROM pg_statio_user_indexes WHERE indexrelname = '" + TABLE + "_purge_after'")) {
                assertThat(r.next()).as("the purge_after index's statistics").isTrue();
                return r.getLong(1);
            }
        }
    }
}
