package dev.inbox.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.HandleOutcome;
import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.Reply;
import dev.inbox.ResultCodec;
import dev.inbox.SequenceGuard;
import dev.inbox.jdbc.TransactionalBatchWork;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
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
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresInboxStoreTest {

    static final String TABLE = "inbox_it";
    static final String SEQUENCES = "inbox_it_sequence";
    static final String SCHEMA = "inbox_it_schema";

    static HikariDataSource auto;
    static HikariDataSource manual;

    @BeforeAll
    static void startPools() throws SQLException {
        auto = PostgresTestDatabase.pool(12, true);
        manual = PostgresTestDatabase.pool(12, false);
        // A fresh schema for every run, so a changed DDL is always the one tested.
        PostgresTestDatabase.execute(
                "DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_purge, " + SEQUENCES,
                "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
        store(auto, Duration.ofMinutes(10)).createSchemaIfMissing();
    }

    @AfterAll
    static void stopPools() {
        auto.close();
        manual.close();
    }

    static PostgresInboxStore store(DataSource dataSource, Duration grace) {
        return PostgresInboxStore.builder(dataSource)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .grace(grace)
                .build();
    }

    /** Lease mode, on a pool in auto-commit mode (the common case). */
    @Nested
    class LeaseKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return store(auto, grace);
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((PostgresInboxStore) store).createSchemaIfMissing();
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            PostgresInboxStore store = PostgresInboxStore.builder(auto)
                    .table(TABLE + "_purge")
                    .grace(grace)
                    .build();
            store.createSchemaIfMissing();
            PostgresTestDatabase.execute("TRUNCATE " + TABLE + "_purge");
            return store;
        }

        @Override
        protected int raceRounds() {
            return 500;
        }
    }

    /** Lease mode again, on a pool whose connections do not auto-commit, in a schema of its own. */
    @Nested
    @Tag("extended")
    class LeaseKitOnManualCommitPoolInSchema extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            PostgresInboxStore store = PostgresInboxStore.builder(manual)
                    .schema(SCHEMA)
                    .table(TABLE)
                    .grace(grace)
                    .build();
            store.createSchemaIfMissing();
            return store;
        }

        @Override
        protected void createSchema(InboxStore store) {
            ((PostgresInboxStore) store).createSchemaIfMissing();
        }

        @Override
        protected InboxStore createEmptyStore(Duration grace) throws SQLException {
            PostgresInboxStore store = PostgresInboxStore.builder(manual)
                    .schema(SCHEMA)
                    .table(TABLE + "_purge")
                    .grace(grace)
                    .build();
            store.createSchemaIfMissing();
            PostgresTestDatabase.execute("TRUNCATE " + SCHEMA + "." + TABLE + "_purge");
            return store;
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
            return PostgresInboxStore.builder(auto)
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
        protected InboxStore createStore(String host, int port, Duration timeout) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setServerNames(new String[] {host});
            dataSource.setPortNumbers(new int[] {port});
            dataSource.setDatabaseName("test");
            dataSource.setUser("postgres");
            int seconds = (int) Math.max(1, timeout.toSeconds());
            dataSource.setConnectTimeout(seconds);
            dataSource.setSocketTimeout(seconds);
            dataSource.setLoginTimeout(seconds);
            return PostgresInboxStore.builder(dataSource).table(TABLE).build();
        }
    }

    // ------------------------------------------------------------------ PostgreSQL-specific tests

    private final String consumer = "pg-" + UUID.randomUUID();

    private InboxKey key(String id) {
        return InboxKey.of(consumer, id);
    }

    @Test
    void builder_rejectsIdentifiersThatAreNotPlainNames_beforeAnyIo() {
        for (String bad :
                new String[] {"", "inbox; DROP TABLE x", "in\"box", "1inbox", "a.b", "x".repeat(64), "ïnbox"}) {
            assertThatThrownBy(() -> PostgresInboxStore.builder(auto).table(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table");
            assertThatThrownBy(() -> PostgresInboxStore.builder(auto).schema(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> PostgresInboxStore.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PostgresInboxStore.builder(auto).grace(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PostgresInboxStore.builder(auto).purgeBatchSize(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PostgresInboxStore.builder(auto).purgeNiceRatio(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nice ratio");
        assertThatThrownBy(() -> PostgresInboxStore.builder(auto).queryTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofNanos(1), Duration.ofDays(-1)}) {
            assertThatThrownBy(() -> PostgresInboxStore.builder(auto).lockWaitTimeout(bad))
                    .as("lockWaitTimeout(%s)", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lockWaitTimeout");
        }
    }

    /**
     * The claim's lock wait bound is set for its own statements only: a {@code lock_timeout} the
     * caller's transaction set is back in force after the claim, for the business writes.
     */
    @Test
    void transactionalClaim_restoresTheTransactionsOwnLockTimeout() throws SQLException {
        PostgresInboxStore store = PostgresInboxStore.builder(auto)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .lockWaitTimeout(Duration.ofMillis(1500))
                .build();
        try (Connection c = manual.getConnection();
                java.sql.Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = '7s'");
            assertThat(store.claimInTransaction(c, key("own-lock-timeout"), Duration.ofMinutes(1), null))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(store.claimInTransaction(c, key("own-lock-timeout"), Duration.ofMinutes(1), null)
                            .status())
                    .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
            try (ResultSet shown = s.executeQuery("SHOW lock_timeout")) {
                shown.next();
                assertThat(shown.getString(1))
                        .as("the transaction's lock_timeout after two claims")
                        .isEqualTo("7s");
            }
            c.rollback();
        }
    }

    /**
     * A lease claim starts with a plain insert while most keys are new and with the statement that
     * reads the record back while most are duplicates; each answers every kind of claim alike.
     */
    @Test
    void leaseClaims_answerAlike_whicheverStatementTheyStartWith() throws InterruptedException {
        PostgresInboxStore store = store(auto, Duration.ofMinutes(10));
        assertThat(store.claimsStartWithInsert()).isTrue();
        assertAnswersAlike(store, "insert-first");
        OwnerToken done = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(key("shape-done"), done, Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("shape-done"), done, Duration.ofHours(1))).isTrue();
        for (int i = 0; i < 20; i++) {
            assertThat(store.claim(ClaimRequest.of(key("shape-done"), OwnerToken.random(), Duration.ofMinutes(1)))
                            .status())
                    .isEqualTo(dev.inbox.spi.ClaimStatus.DUPLICATE);
        }
        assertThat(store.claimsStartWithInsert())
                .as("after a run of duplicates")
                .isFalse();
        assertAnswersAlike(store, "read-back-first");
        for (int i = 0; i < 100; i++) {
            assertThat(store.claim(ClaimRequest.of(key("shape-new-" + i), OwnerToken.random(), Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
        }
        assertThat(store.claimsStartWithInsert()).as("after a run of new keys").isTrue();
    }

    /** A new key, a completed one, a held one, an expired lease and the owner's retry, claimed once each. */
    private void assertAnswersAlike(PostgresInboxStore store, String prefix) throws InterruptedException {
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-new"), owner, Duration.ofMinutes(1))))
                .as(prefix + ": a new key")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-new"), owner, Duration.ofMinutes(1))))
                .as(prefix + ": the owner's retry")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-new"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as(prefix + ": a held key")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key(prefix + "-new"), owner, Duration.ofHours(1)))
                .isTrue();
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-new"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as(prefix + ": a completed key")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-expired"), OwnerToken.random(), Duration.ofMillis(1))))
                .isEqualTo(ClaimResult.acquired());
        Thread.sleep(20);
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-expired"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as(prefix + ": an expired lease")
                .isEqualTo(ClaimResult.takenOver());
    }

    /**
     * One more instance starting while others hold claims in open transactions (a rolling
     * deploy): its {@code createSchemaIfMissing()} finds the schema in place and runs no DDL, so it
     * neither waits for those transactions nor queues every other claim on the table behind its own
     * lock request ({@code CREATE INDEX IF NOT EXISTS} takes the table's SHARE lock before it finds
     * the index there).
     */
    @Test
    void createSchemaIfMissing_onAReadySchema_waitsForNoOpenTransaction() throws SQLException {
        PostgresInboxStore store = store(auto, Duration.ofMinutes(10));
        try (Connection open = manual.getConnection()) {
            assertThat(store.claimInTransaction(open, key("held-during-a-startup"), Duration.ofMinutes(1), null))
                    .isEqualTo(ClaimResult.acquired());
            CompletableFuture<Void> startup = CompletableFuture.runAsync(store::createSchemaIfMissing);
            try {
                assertThat(startup)
                        .as("createSchemaIfMissing() while a transaction holds a claim on the table")
                        .succeedsWithin(Duration.ofSeconds(30));
            } finally {
                open.rollback();
                startup.join();
            }
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
        PostgresTestDatabase.execute(
                "DROP TABLE IF EXISTS " + v1 + ", " + v1 + "_sequence",
                "CREATE TABLE " + v1 + " (consumer text COLLATE \"C\" NOT NULL, dedup_key text COLLATE \"C\" NOT NULL,"
                        + " owner_token text COLLATE \"C\" NOT NULL, state smallint NOT NULL,"
                        + " expires_at timestamptz NOT NULL, fingerprint text COLLATE \"C\","
                        + " PRIMARY KEY (consumer, dedup_key))",
                "CREATE INDEX " + v1 + "_expires_at ON " + v1 + " (expires_at)",
                "INSERT INTO " + v1 + " VALUES ('" + consumer + "', 'done-late', 'o', 1,"
                        + " clock_timestamp() - interval '1 second', 'fp'),"
                        + " ('" + consumer
                        + "', 'done-long-ago', 'o', 1, clock_timestamp() - interval '2 hours', NULL)");
        PostgresInboxStore store = PostgresInboxStore.builder(auto)
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
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT indexname FROM pg_indexes WHERE tablename = ?")) {
            s.setString(1, v1);
            List<String> indexes = new ArrayList<>();
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    indexes.add(rows.getString(1));
                }
            }
            assertThat(indexes).contains(v1 + "_purge_after").doesNotContain(v1 + "_expires_at");
        }
        PostgresTestDatabase.execute("DROP TABLE " + v1 + ", " + v1 + "_sequence");
    }

    /**
     * A version 2 table (no {@code result}) is upgraded in place: its records keep answering, with
     * no result, and new completions keep theirs.
     */
    @Test
    void schemaVersion2_isUpgradedInPlace_toKeepResults() throws SQLException {
        String v2 = "inbox_v2_upgrade";
        PostgresTestDatabase.execute(
                "DROP TABLE IF EXISTS " + v2 + ", " + v2 + "_sequence",
                "CREATE TABLE " + v2 + " (consumer text COLLATE \"C\" NOT NULL, dedup_key text COLLATE \"C\" NOT NULL,"
                        + " owner_token text COLLATE \"C\" NOT NULL, state smallint NOT NULL,"
                        + " expires_at timestamptz NOT NULL, purge_after timestamptz NOT NULL,"
                        + " fingerprint text COLLATE \"C\", PRIMARY KEY (consumer, dedup_key))",
                "INSERT INTO " + v2 + " VALUES ('" + consumer + "', 'done', 'o', 1,"
                        + " clock_timestamp() + interval '1 hour', clock_timestamp() + interval '2 hours', NULL)");
        PostgresInboxStore store = PostgresInboxStore.builder(auto)
                .table(v2)
                .sequenceTable(v2 + "_sequence")
                .build();
        assertThatThrownBy(() -> store.claim(ClaimRequest.of(key("done"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as("before the upgrade")
                .isInstanceOf(InboxStoreException.class)
                .hasMessageContaining("result");
        store.createSchemaIfMissing();
        store.createSchemaIfMissing(); // idempotent once upgraded
        assertThat(store.claim(ClaimRequest.of(key("done"), OwnerToken.random(), Duration.ofMinutes(1))))
                .as("a version 2 record, which keeps no result")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        OwnerToken owner = OwnerToken.random();
        assertThat(store.claim(ClaimRequest.of(key("new"), owner, Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(key("new"), owner, Duration.ofHours(1), new byte[] {0, 1, 2}))
                .isTrue();
        assertThat(store.claim(ClaimRequest.of(key("new"), OwnerToken.random(), Duration.ofMinutes(1)))
                        .storedResult())
                .containsExactly(0, 1, 2);
        PostgresTestDatabase.execute("DROP TABLE " + v2 + ", " + v2 + "_sequence");
    }

    @Test
    void missingTable_failsWithANonRetryableStoreExceptionCarryingTheSqlState() {
        PostgresInboxStore store =
                PostgresInboxStore.builder(auto).table("inbox_never_created").build();
        assertThatThrownBy(() -> store.claim(ClaimRequest.of(key("x"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isInstanceOf(InboxStoreException.class)
                .hasMessageContaining("SQL state 42P01")
                .satisfies(
                        e -> assertThat(((InboxStoreException) e).isRetryable()).isFalse());
    }

    @Test
    void purge_deletesInBoundedBatches_untilNothingIsLeft() throws SQLException {
        PostgresInboxStore store = PostgresInboxStore.builder(auto)
                .table(TABLE)
                .grace(Duration.ZERO)
                .purgeBatchSize(7)
                .build();
        store.purge(); // whatever other tests left behind
        for (int i = 0; i < 25; i++) {
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(key("purge-" + i), owner, Duration.ofMinutes(1)));
            store.complete(key("purge-" + i), owner, Duration.ofMillis(1));
        }
        OwnerToken live = OwnerToken.random();
        store.claim(ClaimRequest.of(key("live"), live, Duration.ofMinutes(1)));
        sleep(50);
        // Paced, a purge interrupted between its batches stops after the first and keeps the flag.
        PostgresInboxStore paced = PostgresInboxStore.builder(auto)
                .table(TABLE)
                .grace(Duration.ZERO)
                .purgeBatchSize(7)
                .purgeNiceRatio(1)
                .build();
        Interrupted.Outcome<Long> first = Interrupted.call(paced::purge);
        assertThat(first.value()).isEqualTo(7);
        assertThat(first.flagKept()).isTrue();
        assertThat(store.purge()).isEqualTo(18);
        assertThat(rows("purge-%")).isZero();
        assertThat(rows("live")).isEqualTo(1);
    }

    @Test
    void expiry_isDecidedByTheDatabaseClock_notTheJvms() throws SQLException {
        // A record whose expiry lies in the database's past counts as expired, whatever the JVM thinks.
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        OwnerToken owner = OwnerToken.random();
        store.claim(ClaimRequest.of(key("db-clock"), owner, Duration.ofHours(1)));
        store.complete(key("db-clock"), owner, Duration.ofHours(1));
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "UPDATE " + TABLE + " SET expires_at = clock_timestamp() - interval '1 second'"
                                + " WHERE consumer = ? AND dedup_key = ?")) {
            s.setString(1, consumer);
            s.setString(2, "db-clock");
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
        assertThat(store.claim(ClaimRequest.of(key("db-clock"), OwnerToken.random(), Duration.ofMinutes(1))))
                .isEqualTo(ClaimResult.duplicate(true, FingerprintCheck.NOT_COMPARED));
    }

    @Test
    void keys_areStoredByteForByte() throws SQLException {
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        String id = "e\u0301\ud83d\ude00 'quoted' \\ %_ " + "k".repeat(400);
        store.claim(ClaimRequest.of(key(id), OwnerToken.random(), Duration.ofMinutes(1)));
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT dedup_key, octet_length(dedup_key) FROM " + TABLE + " WHERE consumer = ?")) {
            s.setString(1, consumer);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(id);
                assertThat(rs.getInt(2)).isEqualTo(key(id).idBytes().length);
            }
        }
    }

    @Test
    void transactionalInbox_runsClaimAndWorkInOneTransaction() throws Exception {
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        PostgresTestDatabase.execute("CREATE TABLE IF NOT EXISTS inbox_it_ledger (id text PRIMARY KEY, amount int)");
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, auto).consumer(consumer).build();
        String event = "pay-1";
        for (int delivery = 0; delivery < 3; delivery++) {
            HandleOutcome outcome = inbox.handle(event, connection -> {
                        try (PreparedStatement s =
                                connection.prepareStatement("INSERT INTO inbox_it_ledger VALUES (?, 10)")) {
                            s.setString(1, consumer + "/" + event);
                            s.executeUpdate();
                        }
                    })
                    .outcome();
            assertThat(outcome).isEqualTo(delivery == 0 ? HandleOutcome.PROCESSED : HandleOutcome.DUPLICATE);
        }
        // Work that fails rolls the claim back: the next delivery applies it.
        assertThatThrownBy(() -> inbox.handle("pay-2", connection -> {
                    throw new SQLException("business rule broken", "P0001");
                }))
                .isInstanceOf(SQLException.class)
                .hasMessage("business rule broken");
        assertThat(inbox.handle("pay-2", connection -> {}).outcome()).isEqualTo(HandleOutcome.PROCESSED);
    }

    /**
     * {@code claimAllInTransaction} answers each key as {@code claimInTransaction} would — new,
     * repeated, committed before, held by a live lease, an expired lease to take over — and sends
     * one statement for a batch of new keys, not one per key.
     */
    @Test
    void transactionalClaimAll_answersAsOneClaimPerKey_inOneStatement() throws SQLException {
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        Duration retention = Duration.ofHours(1);
        assertThat(store.claim(ClaimRequest.of(key("held"), OwnerToken.random(), Duration.ofMinutes(1)))
                        .isAcquired())
                .isTrue();
        assertThat(store.claim(ClaimRequest.of(key("expired"), OwnerToken.random(), Duration.ofMillis(1)))
                        .isAcquired())
                .isTrue();
        try (Connection c = manual.getConnection()) {
            assertThat(store.claimInTransaction(c, key("done"), retention, null))
                    .isEqualTo(ClaimResult.acquired());
            c.commit();
        }
        List<InboxKey> keys = new ArrayList<>();
        for (String id : List.of("new", "done", "new", "held", "expired")) {
            keys.add(key(id));
        }
        try (Connection c = manual.getConnection()) {
            List<ClaimResult> answers = store.claimAllInTransaction(c, keys, retention);
            assertThat(answers)
                    .extracting(ClaimResult::status)
                    .map(Enum::name)
                    .containsExactly("ACQUIRED", "DUPLICATE", "DUPLICATE", "BUSY", "ACQUIRED");
            c.rollback();
        }
        try (Connection c = manual.getConnection()) {
            assertThat(store.claimInTransaction(c, key("new"), retention, null))
                    .as("rolled back with its transaction")
                    .isEqualTo(ClaimResult.acquired());
            c.rollback();
        }
        List<InboxKey> fresh = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fresh.add(key("fresh-" + i));
        }
        int[] statements = {0};
        try (Connection c = manual.getConnection()) {
            Connection counting = (Connection) java.lang.reflect.Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().startsWith("prepare")
                                || method.getName().equals("createStatement")) {
                            statements[0]++;
                        }
                        try {
                            return method.invoke(c, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            assertThat(store.claimAllInTransaction(counting, fresh, retention))
                    .hasSize(50)
                    .allMatch(ClaimResult::isAcquired);
            c.commit();
        }
        assertThat(statements[0]).as("statements for 50 new keys").isEqualTo(1);
        try (Connection c = manual.getConnection()) {
            assertThat(store.claimAllInTransaction(c, fresh, retention))
                    .as("committed")
                    .noneMatch(ClaimResult::isAcquired);
            c.rollback();
        }
    }

    /** A key another open transaction inserted makes the batch wait at most the lock wait bound. */
    @Test
    void transactionalClaimAll_waitsForAnOpenTransactionNoLongerThanTheBound() throws SQLException {
        PostgresInboxStore store = PostgresInboxStore.builder(auto)
                .table(TABLE)
                .sequenceTable(SEQUENCES)
                .lockWaitTimeout(Duration.ofMillis(300))
                .build();
        try (Connection holder = manual.getConnection();
                Connection batch = manual.getConnection()) {
            assertThat(store.claimInTransaction(holder, key("in-flight"), Duration.ofHours(1), null))
                    .isEqualTo(ClaimResult.acquired());
            assertThatThrownBy(() -> store.claimAllInTransaction(
                            batch, List.of(key("other"), key("in-flight")), Duration.ofHours(1)))
                    .isInstanceOf(InboxStoreException.class)
                    .matches(e -> ((InboxStoreException) e).isRetryable());
            batch.rollback();
            holder.rollback();
        }
        try (Connection autoCommit = auto.getConnection()) {
            assertThatThrownBy(() -> store.claimAllInTransaction(autoCommit, List.of(key("x")), Duration.ofHours(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("auto-commit");
        }
    }

    @Test
    void transactionalInbox_handleAll_appliesABatchInOneTransaction_andStopsAtTheFirstBusyEvent() throws Exception {
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        PostgresTestDatabase.execute("CREATE TABLE IF NOT EXISTS inbox_it_batch (consumer text, id text)");
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, auto).consumer(consumer).build();
        TransactionalBatchWork<SQLException> write = (index, connection) -> {
            try (PreparedStatement s = connection.prepareStatement("INSERT INTO inbox_it_batch VALUES (?, ?)")) {
                s.setString(1, consumer);
                s.setString(2, "b" + index);
                s.executeUpdate();
            }
        };
        // A repeated id is applied at its first occurrence only.
        assertThat(inbox.handleAll(List.of("x", "y", "x"), write))
                .containsExactly(HandleOutcome.PROCESSED, HandleOutcome.PROCESSED, HandleOutcome.DUPLICATE);
        // Work that throws rolls back the whole batch, the claims before it included.
        assertThatThrownBy(() -> inbox.handleAll(List.of("z", "w"), (index, connection) -> {
                    write.run(index, connection);
                    if (index == 1) {
                        throw new SQLException("business rule broken", "P0001");
                    }
                }))
                .hasMessage("business rule broken");
        assertThat(inbox.handle("z", connection -> {}).outcome())
                .as("z's claim rolled back with the batch")
                .isEqualTo(HandleOutcome.PROCESSED);
        // A BUSY event ends the batch: what came before it commits, what comes after is not claimed.
        assertThat(store.claim(ClaimRequest.of(key("held"), OwnerToken.random(), Duration.ofMinutes(1)))
                        .isAcquired())
                .isTrue();
        assertThat(inbox.handleAll(List.of("v", "held", "u"), write))
                .containsExactly(HandleOutcome.PROCESSED, HandleOutcome.BUSY);
        assertThat(inbox.handle("v", connection -> {}).outcome()).isEqualTo(HandleOutcome.DUPLICATE);
        assertThat(inbox.handle("u", connection -> {}).outcome()).isEqualTo(HandleOutcome.PROCESSED);
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT count(*) FROM inbox_it_batch WHERE consumer = ?")) {
            s.setString(1, consumer);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1))
                        .as("rows written: x, y, then v; the failed batch left none")
                        .isEqualTo(3);
            }
        }
    }

    @Test
    void transactionalInbox_handleReturning_answersDuplicatesWithTheCommittedReply() throws Exception {
        PostgresInboxStore store = store(auto, Duration.ofHours(1));
        PostgresTestDatabase.execute("CREATE TABLE IF NOT EXISTS inbox_it_orders (id text PRIMARY KEY, number serial)");
        TransactionalInbox inbox =
                TransactionalInbox.builder(store, auto).consumer(consumer).build();
        List<String> replies = new ArrayList<>();
        for (int delivery = 0; delivery < 3; delivery++) {
            Reply<String> reply = inbox.handleReturning("order-1", ResultCodec.utf8(), connection -> {
                try (PreparedStatement s =
                        connection.prepareStatement("INSERT INTO inbox_it_orders (id) VALUES (?) RETURNING number")) {
                    s.setString(1, consumer + "/order-1");
                    try (ResultSet row = s.executeQuery()) {
                        row.next();
                        return "order number " + row.getInt(1);
                    }
                }
            });
            assertThat(reply.outcome()).isEqualTo(delivery == 0 ? HandleOutcome.PROCESSED : HandleOutcome.DUPLICATE);
            replies.add(reply.value());
        }
        assertThat(replies).as("the same reply for every delivery").hasSize(3).containsOnly(replies.get(0));
        assertThatThrownBy(() -> inbox.handleReturning(
                        "order-2",
                        ResultCodec.bytes(),
                        connection -> new byte[PostgresInboxStore.MAX_RESULT_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(inbox.handleReturning("order-2", ResultCodec.utf8(), connection -> "kept")
                        .value())
                .as("the oversized reply rolled its claim back")
                .isEqualTo("kept");
    }

    private int rows(String pattern) throws SQLException {
        try (Connection c = auto.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM " + TABLE + " WHERE consumer = ? AND dedup_key LIKE ?")) {
            s.setString(1, consumer);
            s.setString(2, pattern);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
