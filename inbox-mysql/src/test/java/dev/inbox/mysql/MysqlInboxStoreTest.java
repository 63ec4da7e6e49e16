package dev.inbox.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mysql.cj.jdbc.MysqlDataSource;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.HandleOutcome;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.SequenceGuard;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.tck.StoreFailureContract;
import dev.inbox.tck.TransactionalStoreContract;
import dev.inbox.testing.Interrupted;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class MysqlInboxStoreTest {

    static final String TABLE = "inbox_it";
    static final String SEQUENCES = "inbox_it_sequence";
    static final String SCHEMA = "inbox_it_schema";

    static HikariDataSource auto;
    static HikariDataSource manual;

    @BeforeAll
    static void startPools() throws SQLException {
        auto = MysqlTestDatabase.pool(12, true);
        manual = MysqlTestDatabase.pool(12, false);
        // A fresh schema for every run, so a changed DDL is always the one tested.
        MysqlTestDatabase.execute(
                "DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_purge, " + SEQUENCES,
                "DROP DATABASE IF EXISTS " + SCHEMA);
        store(auto, Duration.ofMinutes(10)).createSchemaIfMissing();
    }

    @AfterAll
    static void stopPools() {
        auto.close();
        manual.close();
    }

    static MysqlInboxStore store(DataSource dataSource, Duration grace) {
        return MysqlInboxStore.builder(dataSource)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .grace(grace)
                .build();
    }

    static MysqlInboxStore emptyStore(DataSource dataSource, String schema, Duration grace) throws SQLException {
        MysqlInboxStore.Builder builder =
                MysqlInboxStore.builder(dataSource).table(TABLE + "_purge").grace(grace);
        if (schema != null) {
            builder.schema(schema);
        }
        MysqlInboxStore store = builder.build();
        store.createSchemaIfMissing();
        MysqlTestDatabase.execute("DELETE FROM " + (schema == null ? "" : schema + ".") + TABLE + "_purge");
        return store;
    }

    /** Lease mode, on a pool in auto-commit mode (the common case). */
    @Nested
    class LeaseKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return store(auto, grace);
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            return emptyStore(auto, null, grace);
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((MysqlInboxStore) store).createSchemaIfMissing();
        }

        @Override
        protected int raceRounds() {
            return 500;
        }
    }

    /** Lease mode again, on a pool whose connections do not auto-commit, in a database of its own. */
    @Nested
    @Tag("extended")
    class LeaseKitOnManualCommitPoolInSchema extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            MysqlInboxStore store = MysqlInboxStore.builder(manual)
                    .schema(SCHEMA)
                    .table(TABLE)
                    .grace(grace)
                    .build();
            store.createSchemaIfMissing();
            return store;
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            return emptyStore(manual, SCHEMA, grace);
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((MysqlInboxStore) store).createSchemaIfMissing();
        }

        @Override
        protected int raceRounds() {
            return 500;
        }
    }

    @Nested
    class TransactionalKit extends TransactionalStoreContract {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) {
            return MysqlInboxStore.builder(auto)
                    .table(TABLE)
                    .sequenceTable(SEQUENCES)
                    .grace(grace)
                    .lockWaitTimeout(lockWaitBound())
                    .build();
        }

        @Override
        protected Duration lockWaitBound() {
            return Duration.ofSeconds(1);
        }

        @Override
        protected DataSource dataSource() {
            return auto;
        }
    }

    @Nested
    class SequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return store(auto, Duration.ofMinutes(10)).sequenceGuard();
        }
    }

    @Nested
    class FailureKit extends StoreFailureContract {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) throws SQLException {
            MysqlDataSource dataSource = new MysqlDataSource();
            dataSource.setServerName(host);
            dataSource.setPort(port);
            dataSource.setDatabaseName("test");
            dataSource.setUser("root");
            dataSource.setPassword("");
            int millis = (int) timeout.toMillis();
            dataSource.setConnectTimeout(millis);
            dataSource.setSocketTimeout(millis);
            return MysqlInboxStore.builder(dataSource).table(TABLE).build();
        }
    }

    // ---------------------------------------------------------------- MySQL/MariaDB-specific tests

    private final String consumer = "my-" + UUID.randomUUID();

    private InboxKey key(String id) {
        return InboxKey.of(consumer, id);
    }

    /** The keys a default collation or a short VARCHAR would merge: all distinct here. */
    @Test
    void keysThatDefaultCollationsWouldMerge_stayDistinct() {
        MysqlInboxStore store = store(auto, Duration.ofHours(1));
        List<String> ids = List.of(
                "order-42",
                "Order-42",
                "ORDER-42",
                "order-42 ",
                "order-42  ",
                "ordér-42",
                "orde\u0301r-42",
                "o".repeat(64) + "-tail-a",
                "o".repeat(64) + "-tail-b");
        for (String id : ids) {
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(key(id), owner, Duration.ofMinutes(1))))
                    .as("claim of '%s'", id)
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(key(id), owner, Duration.ofHours(1))).isTrue();
        }
        for (String id : ids) {
            assertThat(store.claim(ClaimRequest.of(key(id), OwnerToken.random(), Duration.ofMinutes(1))))
                    .as("duplicate of '%s'", id)
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        }
    }

    /**
     * A table created by version 1 of the schema (no {@code purge_after}) is upgraded in place by
     * {@code createSchemaIfMissing()}: its records keep answering, with the upgrading instance's
     * grace, and the old index gives way to the new one.
     */
    @Test
    void schemaVersion1_isUpgradedInPlace_keepingItsRecords() throws SQLException {
        String v1 = "inbox_v1_upgrade";
        String c = "x'" + java.util.HexFormat.of().formatHex(consumer.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                + "'";
        MysqlTestDatabase.execute(
                "DROP TABLE IF EXISTS " + v1 + ", " + v1 + "_sequence",
                "CREATE TABLE " + v1 + " (consumer VARBINARY(512) NOT NULL, dedup_key VARBINARY(512) NOT NULL,"
                        + " owner_token VARBINARY(64) NOT NULL, state TINYINT NOT NULL,"
                        + " expires_at DATETIME(6) NOT NULL, fingerprint VARBINARY(128) NULL,"
                        + " PRIMARY KEY (consumer, dedup_key), KEY " + v1 + "_expires_at (expires_at)) ENGINE = InnoDB",
                "INSERT INTO " + v1 + " VALUES (" + c + ", 'done-late', 'o', 1,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 SECOND, 'fp'),"
                        + " (" + c + ", 'done-long-ago', 'o', 1, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, NULL)");
        MysqlInboxStore store = MysqlInboxStore.builder(auto)
                .table(v1)
                .sequenceTable(v1 + "_sequence")
                .grace(Duration.ofHours(1))
                .build();
        store.createSchemaIfMissing();
        store.createSchemaIfMissing(); // idempotent once upgraded
        assertThat(store.claim(ClaimRequest.of(key("done-late"), OwnerToken.random(), Duration.ofMinutes(1))
                        .withFingerprint("fp")))
                .as("an expired version 1 record inside the upgrading instance's grace")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.MATCH));
        assertThat(store.purge()).as("only the record past expiry + grace").isEqualTo(1);
        List<String> indexes = new ArrayList<>();
        try (Connection conn = auto.getConnection();
                PreparedStatement s =
                        conn.prepareStatement("SELECT DISTINCT index_name FROM information_schema.statistics"
                                + " WHERE table_schema = DATABASE() AND table_name = ?")) {
            s.setString(1, v1);
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    indexes.add(rows.getString(1));
                }
            }
        }
        assertThat(indexes).contains(v1 + "_purge_after").doesNotContain(v1 + "_expires_at");
        MysqlTestDatabase.execute("DROP TABLE " + v1 + ", " + v1 + "_sequence");
    }

    /**
     * A version 2 table (no {@code result}) is upgraded in place: its records keep answering, with
     * no result, and new completions keep theirs, binary included.
     */
    @Test
    void schemaVersion2_isUpgradedInPlace_toKeepResults() throws SQLException {
        String v2 = "inbox_v2_upgrade";
        String c = "x'" + java.util.HexFormat.of().formatHex(consumer.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                + "'";
        MysqlTestDatabase.execute(
                "DROP TABLE IF EXISTS " + v2 + ", " + v2 + "_sequence",
                "CREATE TABLE " + v2 + " (consumer VARBINARY(512) NOT NULL, dedup_key VARBINARY(512) NOT NULL,"
                        + " owner_token VARBINARY(64) NOT NULL, state TINYINT NOT NULL,"
                        + " expires_at DATETIME(6) NOT NULL, purge_after DATETIME(6) NOT NULL,"
                        + " fingerprint VARBINARY(128) NULL, PRIMARY KEY (consumer, dedup_key),"
                        + " KEY " + v2 + "_purge_after (purge_after)) ENGINE = InnoDB",
                "INSERT INTO " + v2 + " VALUES (" + c + ", 'done', 'o', 1,"
                        + " UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, UTC_TIMESTAMP(6) + INTERVAL 2 HOUR, NULL)");
        MysqlInboxStore store = MysqlInboxStore.builder(auto)
                .table(v2)
                .sequenceTable(v2 + "_sequence")
                .build();
        store.createSchemaIfMissing();
        store.createSchemaIfMissing(); // idempotent once upgraded
        assertThat(store.claim(ClaimRequest.of(key("done"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as("a version 2 record, which keeps no result")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(key("new"), owner, Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("new"), owner, Duration.ofHours(1), new byte[] {0, (byte) 0xff, '\n'}))
                .isTrue();
        assertThat(store.claim(ClaimRequest.of(key("new"), OwnerToken.random(), Duration.ofMinutes(1)))
                        .storedResult())
                .containsExactly(0, 0xff, '\n');
        MysqlTestDatabase.execute("DROP TABLE " + v2 + ", " + v2 + "_sequence");
    }

    @Test
    void overlongKeys_areRejectedBeforeTheInsert_neverTruncated() {
        String longest = "x".repeat(512);
        assertThatThrownBy(() -> key(longest + "y")).isInstanceOf(IllegalArgumentException.class);
        MysqlInboxStore store = store(auto, Duration.ofHours(1));
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(key(longest), owner, Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(
                        ClaimRequest.of(key(longest.substring(1) + "z"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as("a key sharing 511 bytes with a stored one")
                .isEqualTo(ClaimResult.acquired());
    }

    @Test
    void builder_rejectsIdentifiersThatAreNotPlainNames() {
        for (String bad : new String[] {"", "inbox; DROP TABLE x", "in`box", "1inbox", "a.b", "x".repeat(64)}) {
            assertThatThrownBy(() -> MysqlInboxStore.builder(auto).table(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> MysqlInboxStore.builder(auto).schema(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> MysqlInboxStore.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MysqlInboxStore.builder(auto).purgeNiceRatio(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nice ratio");
        assertThatThrownBy(() -> MysqlInboxStore.builder(auto).purgeBatchSize(0))
                .isInstanceOf(IllegalArgumentException.class);
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofDays(-1), Duration.ofDays(20_000)}) {
            assertThatThrownBy(() -> MysqlInboxStore.builder(auto).lockWaitTimeout(bad))
                    .as("lockWaitTimeout(%s)", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockWaitTimeout");
        }
    }

    /**
     * MySQL has no {@code SET STATEMENT}: the lock wait bound is the session's, set before the claim
     * and restored after it. Run here on MariaDB, which has both, by calling that path directly: a
     * claim behind an open transaction fails retryably within the bound, and the session keeps its
     * own value afterwards.
     */
    /**
     * A transactional batch is claimed in one statement per chunk, not one per key (the SPI's
     * default), and each key is answered as a claim of its own would be: new keys ACQUIRED, a
     * completed one DUPLICATE, one held by a live lease BUSY, a repeat DUPLICATE of its first.
     * Statements counted with the session's {@code Com_insert} and {@code Com_select}.
     */
    @Test
    void claimAllInTransaction_claimsABatchInOneStatement_andAnswersEachKeyAsAloneWould() throws Exception {
        MysqlInboxStore store = store(auto, Duration.ofMinutes(10));
        String run = UUID.randomUUID().toString();
        List<InboxKey> fresh = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            fresh.add(key(run + "-" + i));
        }
        try (Connection c = manual.getConnection()) {
            long[] before = statements(c);
            List<ClaimResult> answers = store.claimAllInTransaction(c, fresh, Duration.ofMinutes(1));
            long[] after = statements(c);
            assertThat(answers).hasSize(40).allMatch(ClaimResult::isAcquired);
            assertThat(after[0] - before[0])
                    .as("INSERT statements for 40 new keys")
                    .isEqualTo(1);
            assertThat(after[1] - before[1])
                    .as("SELECT statements when no key conflicted")
                    .isZero();
            c.commit();
        }
        InboxKey held = key(run + "-held");
        assertThat(store.claim(ClaimRequest.of(held, OwnerToken.random(), Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        InboxKey fresh2 = key(run + "-new");
        try (Connection c = manual.getConnection()) {
            long[] before = statements(c);
            List<ClaimResult> answers =
                    store.claimAllInTransaction(c, List.of(fresh2, fresh.get(7), held, fresh2), Duration.ofMinutes(1));
            long[] after = statements(c);
            assertThat(answers.get(0).isAcquired()).as("a new key").isTrue();
            assertThat(answers.get(1).status()).as("a completed key").isEqualTo(ClaimStatus.DUPLICATE);
            assertThat(answers.get(2).status()).as("a key held by a live lease").isEqualTo(ClaimStatus.BUSY);
            assertThat(answers.get(3).status()).as("a repeat in the batch").isEqualTo(ClaimStatus.DUPLICATE);
            assertThat(after[0] - before[0]).as("INSERT statements").isEqualTo(1);
            assertThat(after[1] - before[1])
                    .as("SELECT statements: one read of the conflicting rows")
                    .isEqualTo(1);
            c.rollback();
        }
        try (Connection c = manual.getConnection()) {
            assertThat(store.claimInTransaction(c, fresh2, Duration.ofMinutes(1), null)
                            .isAcquired())
                    .as("the new key of a batch rolled back")
                    .isTrue();
            c.rollback();
        }
    }

    /** The session's counts of INSERT and SELECT statements so far. */
    private static long[] statements(Connection c) throws SQLException {
        long[] counts = new long[2];
        try (PreparedStatement s =
                        c.prepareStatement("SHOW SESSION STATUS WHERE Variable_name IN ('Com_insert', 'Com_select')");
                ResultSet rows = s.executeQuery()) {
            while (rows.next()) {
                counts[rows.getString(1).equalsIgnoreCase("Com_insert") ? 0 : 1] = rows.getLong(2);
            }
        }
        return counts;
    }

    @Test
    void sessionLockWait_boundsTheClaimAndRestoresTheSessionValue() throws Exception {
        MysqlInboxStore store = MysqlInboxStore.builder(auto)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .lockWaitTimeout(Duration.ofMillis(1))
                .build();
        ClaimRequest request = ClaimRequest.of(key("session-lock-wait"), OwnerToken.random(), Duration.ofMinutes(1));
        try (Connection holder = manual.getConnection();
                Connection waiter = manual.getConnection();
                java.sql.Statement session = waiter.createStatement()) {
            assertThat(store.claimInTransaction(holder, request.key(), Duration.ofMinutes(1), null))
                    .isEqualTo(ClaimResult.acquired());
            session.execute("SET SESSION innodb_lock_wait_timeout = 33");
            long started = System.nanoTime();
            assertThatThrownBy(() -> store.claimWithSessionLockWait(waiter, request, 60_000_000L))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(dev.inbox.jdbc.JdbcErrors.isRetryable((SQLException) e))
                            .isTrue());
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("bounded by 1 s, not the session's 33 s")
                    .isLessThan(Duration.ofSeconds(20));
            try (ResultSet value = session.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
                value.next();
                assertThat(value.getInt(1))
                        .as("the session's own value, restored")
                        .isEqualTo(33);
            }
            waiter.rollback();
            holder.rollback();
        }
    }

    @Test
    void missingTable_failsWithANonRetryableStoreException() {
        MysqlInboxStore store =
                MysqlInboxStore.builder(auto).table("inbox_never_created").build();
        assertThatThrownBy(() -> store.claim(ClaimRequest.of(key("x"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isInstanceOf(InboxStoreException.class)
                .hasMessageContaining("42S02")
                .satisfies(
                        e -> assertThat(((InboxStoreException) e).isRetryable()).isFalse());
    }

    @Test
    void purge_deletesInBoundedBatches() throws SQLException {
        MysqlInboxStore store = MysqlInboxStore.builder(auto)
                .table(TABLE + "_batches")
                .grace(Duration.ZERO)
                .purgeBatchSize(7)
                .build();
        store.createSchemaIfMissing();
        MysqlTestDatabase.execute("DELETE FROM " + TABLE + "_batches");
        for (int i = 0; i < 25; i++) {
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(key("purge-" + i), owner, Duration.ofMinutes(1)));
            store.complete(key("purge-" + i), owner, Duration.ofMillis(1));
        }
        store.claim(ClaimRequest.of(key("live"), OwnerToken.random(), Duration.ofMinutes(1)));
        sleep(50);
        // Paced, a purge interrupted between its batches stops after the first and keeps the flag.
        MysqlInboxStore paced = MysqlInboxStore.builder(auto)
                .table(TABLE + "_batches")
                .grace(Duration.ZERO)
                .purgeBatchSize(7)
                .purgeNiceRatio(1)
                .build();
        Interrupted.Outcome<Long> first = Interrupted.call(paced::purge);
        assertThat(first.value()).isEqualTo(7);
        assertThat(first.flagKept()).isTrue();
        assertThat(store.purge()).isEqualTo(18);
        assertThat(store.claim(ClaimRequest.of(key("live"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.busy());
    }

    @Test
    void claim_answersTheSameWhateverTheDriversAffectedRowsSetting() throws SQLException {
        try (HikariDataSource affected = new HikariDataSource()) {
            affected.setJdbcUrl(MysqlTestDatabase.url() + "&useAffectedRows=true");
            affected.setMaximumPoolSize(2);
            MysqlInboxStore store = store(affected, Duration.ofHours(1));
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(key("rows"), owner, Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.claim(ClaimRequest.of(key("rows"), owner, Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(key("rows"), owner, Duration.ofHours(1))).isTrue();
            assertThat(store.complete(key("rows"), owner, Duration.ofHours(1)))
                    .as("a repeat changes no row")
                    .isTrue();
            assertThat(store.claim(ClaimRequest.of(key("rows"), OwnerToken.random(), Duration.ofMinutes(1)))
                            .status())
                    .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        }
    }

    /** The claim's code travels in LAST_INSERT_ID, which a connection keeps between statements. */
    @Test
    void aConflictsCode_neverLeaksIntoTheNextClaimOnTheSameConnection() {
        try (HikariDataSource single = new HikariDataSource()) {
            single.setJdbcUrl(MysqlTestDatabase.url());
            single.setMaximumPoolSize(1);
            MysqlInboxStore store = store(single, Duration.ofHours(1));
            OwnerToken owner = OwnerToken.random();
            assertThat(store.claim(ClaimRequest.of(key("leak"), owner, Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.complete(key("leak"), owner, Duration.ofHours(1))).isTrue();
            for (int i = 0; i < 5; i++) {
                assertThat(store.claim(ClaimRequest.of(key("leak"), OwnerToken.random(), Duration.ofMinutes(1)))
                                .status())
                        .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
                assertThat(store.claim(ClaimRequest.of(key("fresh-" + i), OwnerToken.random(), Duration.ofMinutes(1))))
                        .as("a new key right after a conflict on the same connection")
                        .isEqualTo(ClaimResult.acquired());
                assertThat(store.complete(key("leak"), OwnerToken.random(), Duration.ofHours(1)))
                        .as("a stranger's complete right after")
                        .isFalse();
            }
        }
    }

    @Test
    void transactionalInbox_runsClaimAndWorkInOneTransaction() throws Exception {
        MysqlInboxStore store = store(auto, Duration.ofHours(1));
        MysqlTestDatabase.execute("CREATE TABLE IF NOT EXISTS inbox_it_ledger (id VARCHAR(200) PRIMARY KEY)");
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, auto).consumer(consumer).build();
        for (int delivery = 0; delivery < 3; delivery++) {
            HandleOutcome outcome = inbox.handle("pay-1", connection -> {
                        try (PreparedStatement s =
                                connection.prepareStatement("INSERT INTO inbox_it_ledger VALUES (?)")) {
                            s.setString(1, consumer + "/pay-1");
                            s.executeUpdate();
                        }
                    })
                    .outcome();
            assertThat(outcome).isEqualTo(delivery == 0 ? HandleOutcome.PROCESSED : HandleOutcome.DUPLICATE);
        }
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM inbox_it_ledger WHERE id = ?")) {
            s.setString(1, consumer + "/pay-1");
            try (var rs = s.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
        }
    }

    /** A code as the claim statement reports it: the bits, and the time past expiry in microseconds. */
    private static long code(long bits, long pastExpiryMicros) {
        return bits + ((pastExpiryMicros + MysqlStatements.PAST_EXPIRY_OFFSET) << MysqlStatements.PAST_EXPIRY_SHIFT);
    }

    @Test
    void decode_readsEveryBitOfTheServersDecision() {
        assertThat(MysqlCodec.decode(0)).isEqualTo(ClaimResult.acquired());
        assertThat(MysqlCodec.decode(code(2, 5)))
                .as("to take: expired lease of another")
                .isNull();
        assertThat(MysqlCodec.taken(code(2, 5))).isEqualTo(ClaimResult.takenOver());
        assertThat(MysqlCodec.decode(code(2 + 32, -5))).as("to take: own lease").isNull();
        assertThat(MysqlCodec.taken(code(2 + 32, -5))).isEqualTo(ClaimResult.acquired());
        assertThat(MysqlCodec.decode(code(2 + 4 + 16, 5)))
                .as("to take: past grace")
                .isNull();
        assertThat(MysqlCodec.taken(code(2 + 4 + 16, 5))).isEqualTo(ClaimResult.acquired());
        ClaimResult live = MysqlCodec.decode(code(2 + 4 + 64, -1_500));
        assertThat(live).isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.MATCH));
        assertThat(live.pastRetention()).isEqualTo(Duration.ofNanos(-1_500_000));
        ClaimResult late = MysqlCodec.decode(code(2 + 4 + 128, 0));
        assertThat(late)
                .as("late from the expiry's microsecond on")
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.MISMATCH));
        assertThat(late.pastRetention()).isZero();
        assertThat(MysqlCodec.decode(code(2 + 4, Duration.ofDays(36_525).toNanos() / 1_000))
                        .pastRetention())
                .as("a century either way fits")
                .isEqualTo(Duration.ofDays(36_525));
        assertThat(MysqlCodec.decode(code(2, -1))).isEqualTo(ClaimResult.busy());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
