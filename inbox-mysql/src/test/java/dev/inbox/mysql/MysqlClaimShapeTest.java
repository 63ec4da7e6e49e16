package dev.inbox.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import dev.inbox.spi.OwnerToken;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A claim starts with the short statement of a new key ({@link MysqlStatements#claimNew()}) while
 * most keys are new, and with the full claim while most are there; counted with the server's own
 * statement counters on the one connection of a pool.
 */
class MysqlClaimShapeTest {

    private static final String TABLE = "inbox_shape_it";
    private static final Duration LEASE = Duration.ofMinutes(1);

    private static HikariDataSource single;
    private static HikariDataSource manual;

    private final String consumer = "shape-" + UUID.randomUUID();

    @BeforeAll
    static void startPools() throws SQLException {
        single = MysqlTestDatabase.pool(1, true);
        manual = MysqlTestDatabase.pool(2, false);
        MysqlTestDatabase.execute("DROP TABLE IF EXISTS " + TABLE + ", " + TABLE + "_sequence");
        store(single).createSchemaIfMissing();
    }

    @AfterAll
    static void stopPools() {
        single.close();
        manual.close();
    }

    private static MysqlInboxStore store(DataSource dataSource) {
        return MysqlInboxStore.builder(dataSource)
                .table(TABLE)
                .sequenceTable(TABLE + "_sequence")
                .grace(Duration.ofMinutes(10))
                .build();
    }

    private InboxKey key(String id) {
        return InboxKey.of(consumer, id);
    }

    /**
     * A new key costs one statement, whichever way claims start; a key that is there costs two
     * (the short statement, then the full claim) while claims start with the short one, and one
     * after enough of them turned claims to the full statement first.
     */
    @Test
    void aNewKeyCostsOneStatement_andAKeyThatIsThereTwoOnlyWhileSuchKeysAreRare() throws SQLException {
        MysqlInboxStore store = store(single);
        assertThat(store.claimsStartWithNewKeyStatement()).isTrue();
        for (int i = 0; i < 10; i++) {
            Map<String, Long> before = counters();
            assertThat(store.claim(ClaimRequest.of(key("new-" + i), OwnerToken.random(), LEASE)))
                    .isEqualTo(ClaimResult.acquired());
            assertStatements(before, 1, "a new key");
        }
        OwnerToken owner = OwnerToken.random();
        store.claim(ClaimRequest.of(key("done"), owner, LEASE));
        assertThat(store.complete(key("done"), owner, Duration.ofHours(1))).isTrue();
        int twice = 0;
        for (int i = 0; i < 20; i++) {
            boolean shortFirst = store.claimsStartWithNewKeyStatement();
            Map<String, Long> before = counters();
            assertThat(store.claim(ClaimRequest.of(key("done"), OwnerToken.random(), LEASE)))
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
            assertStatements(before, shortFirst ? 2 : 1, "a duplicate, claims starting short: " + shortFirst);
            twice += shortFirst ? 1 : 0;
        }
        assertThat(twice).as("duplicates that cost two statements").isBetween(1, 10);
        assertThat(store.claimsStartWithNewKeyStatement())
                .as("after a run of duplicates")
                .isFalse();
        for (int i = 0; i < 100; i++) {
            store.claim(ClaimRequest.of(key("again-" + i), OwnerToken.random(), LEASE));
        }
        assertThat(store.claimsStartWithNewKeyStatement())
                .as("after a run of new keys")
                .isTrue();
    }

    /** Every kind of claim is answered alike whichever statement it starts with, in both modes. */
    @Test
    void claimsAnswerAlike_whicheverStatementTheyStartWith() throws Exception {
        MysqlInboxStore store = store(single);
        assertAnswersAlike(store, "short-first");
        OwnerToken owner = OwnerToken.random();
        store.claim(ClaimRequest.of(key("turn"), owner, LEASE));
        store.complete(key("turn"), owner, Duration.ofHours(1));
        while (store.claimsStartWithNewKeyStatement()) {
            store.claim(ClaimRequest.of(key("turn"), OwnerToken.random(), LEASE));
        }
        assertAnswersAlike(store, "full-first");
    }

    private void assertAnswersAlike(MysqlInboxStore store, String prefix) throws Exception {
        OwnerToken owner = OwnerToken.random();
        InboxKey key = key(prefix + "-new");
        assertThat(store.claim(ClaimRequest.of(key, owner, LEASE)))
                .as(prefix + ": a new key")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(ClaimRequest.of(key, owner, LEASE)))
                .as(prefix + ": the owner's retry")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(ClaimRequest.of(key, OwnerToken.random(), LEASE)))
                .as(prefix + ": a held key")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(key, owner, Duration.ofHours(1))).isTrue();
        assertThat(store.claim(ClaimRequest.of(key, OwnerToken.random(), LEASE)))
                .as(prefix + ": a completed key")
                .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-expired"), OwnerToken.random(), Duration.ofMillis(1))))
                .isEqualTo(ClaimResult.acquired());
        Thread.sleep(20);
        assertThat(store.claim(ClaimRequest.of(key(prefix + "-expired"), OwnerToken.random(), LEASE)))
                .as(prefix + ": an expired lease")
                .isEqualTo(ClaimResult.takenOver());
        try (Connection c = manual.getConnection()) {
            assertThat(store.claimInTransaction(c, key(prefix + "-tx"), Duration.ofHours(1), null))
                    .as(prefix + ": a new key in a transaction")
                    .isEqualTo(ClaimResult.acquired());
            c.commit();
            assertThat(store.claimInTransaction(c, key(prefix + "-tx"), Duration.ofHours(1), null))
                    .as(prefix + ": a key committed by an earlier transaction")
                    .isEqualTo(ClaimResult.duplicate(false, FingerprintCheck.NOT_COMPARED));
            c.rollback();
        }
    }

    /** {@code Com_insert} and {@code Questions} of the pool's one connection. */
    private static Map<String, Long> counters() throws SQLException {
        Map<String, Long> values = new HashMap<>();
        try (Connection c = single.getConnection();
                Statement s = c.createStatement();
                ResultSet rows =
                        s.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN ('Com_insert', 'Questions')")) {
            while (rows.next()) {
                values.put(rows.getString(1), rows.getLong(2));
            }
        }
        assertThat(values).containsOnlyKeys("Com_insert", "Questions");
        return values;
    }

    /** The claim since {@code before} sent {@code inserts} statements, all of them inserts. */
    private static void assertStatements(Map<String, Long> before, long inserts, String what) throws SQLException {
        Map<String, Long> after = counters();
        assertThat(after.get("Com_insert") - before.get("Com_insert"))
                .as(what + ": inserts")
                .isEqualTo(inserts);
        assertThat(after.get("Questions") - before.get("Questions"))
                .as(what + ": statements, the second SHOW STATUS included")
                .isEqualTo(inserts + 1);
    }
}
