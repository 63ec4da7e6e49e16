package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

/**
 * The transactional rules (T1–T4) against a transactional store on an embedded H2 database
 * ({@link H2TransactionalStore}): the correct store passes them, and each broken one fails its
 * rule.
 */
class TransactionalRuleSelfTest {

    /** A kit on a database of its own. */
    abstract static class H2Kit extends TransactionalStoreContract {
        private static final java.util.Map<Class<?>, DataSource> DATABASES =
                new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        protected DataSource dataSource() {
            return DATABASES.computeIfAbsent(getClass(), k -> {
                JdbcDataSource h2 = new JdbcDataSource();
                h2.setURL("jdbc:h2:mem:kit-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT="
                        + lockTimeout().toMillis());
                return h2;
            });
        }

        /** H2's LOCK_TIMEOUT: the store's lock wait bound. */
        Duration lockTimeout() {
            return Duration.ofSeconds(2);
        }

        @Override
        protected Duration lockWaitBound() {
            return lockTimeout();
        }

        @Override
        protected int raceRounds() {
            return 50;
        }
    }

    static class CorrectKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace);
        }
    }

    /** Claims on a connection of its own, which commits by itself: a rollback keeps the claim. */
    static class OwnConnectionKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace) {
                @Override
                ClaimResult claimOn(Connection c, ClaimRequest request, int state) throws SQLException {
                    try (Connection own = dataSource.getConnection()) {
                        own.setAutoCommit(true);
                        return super.claimOn(own, request, state);
                    }
                }
            };
        }
    }

    /** Takes a unique violation for a win: both racing transactions think they acquired. */
    static class ViolationIsAcquiredKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace) {
                @Override
                ClaimResult onUniqueViolation() {
                    return ClaimResult.acquired();
                }
            };
        }
    }

    /** Commits the caller's transaction after claiming: the business write no longer goes with it. */
    static class CommitsTheCallersTransactionKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace) {
                @Override
                ClaimResult claimOn(Connection c, ClaimRequest request, int state) throws SQLException {
                    ClaimResult result = super.claimOn(c, request, state);
                    c.commit();
                    return result;
                }
            };
        }
    }

    /** Declares a bound of 1 s but waits up to H2's 20 s: a hung holder stalls the key. */
    static class WaitsPastItsBoundKit extends CorrectKit {
        @Override
        Duration lockTimeout() {
            return Duration.ofSeconds(20);
        }

        @Override
        protected Duration lockWaitBound() {
            return Duration.ofSeconds(1);
        }

        @Override
        protected Duration lockWaitSlack() {
            return Duration.ofSeconds(1);
        }
    }

    /** Answers ACQUIRED when its lock wait times out: two transactions hold the key at once. */
    static class LockTimeoutIsAcquiredKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace) {
                @Override
                public ClaimResult claimInTransaction(
                        Connection connection, InboxKey key, Duration retention, @Nullable String fingerprint) {
                    try {
                        return super.claimInTransaction(connection, key, retention, fingerprint);
                    } catch (InboxStoreException e) {
                        return ClaimResult.acquired();
                    }
                }
            };
        }
    }

    /** Answers a batch from each key's first claim in it: a repeated key is ACQUIRED twice. */
    static class BatchForgetsRepeatsKit extends H2Kit {
        @Override
        protected TransactionalInboxStore createStore(Duration grace) throws SQLException {
            return new H2TransactionalStore(dataSource(), grace) {
                @Override
                public java.util.List<ClaimResult> claimAllInTransaction(
                        Connection connection, java.util.List<InboxKey> keys, Duration retention) {
                    java.util.Map<InboxKey, ClaimResult> first = new java.util.HashMap<>();
                    java.util.List<ClaimResult> answers = new java.util.ArrayList<>();
                    for (InboxKey key : keys) {
                        answers.add(
                                first.computeIfAbsent(key, k -> claimInTransaction(connection, k, retention, null)));
                    }
                    return answers;
                }
            };
        }
    }

    @Test
    void correctTransactionalStore_passesT1ToT4AndE6() {
        Events events = KitRun.all(CorrectKit.class);
        assertThat(events.failed().list()).as("failures of the correct store").isEmpty();
        assertThat(events.succeeded().count()).isPositive();
    }

    @Test
    @DisplayName("T1 catches a store that claims on a connection of its own")
    void t1() {
        assertThat(KitRun.failedRules(OwnConnectionKit.class, "T1")).contains("T1");
    }

    @Test
    @DisplayName("T2 catches a store that takes a unique violation for a win")
    void t2() {
        assertThat(KitRun.failedRules(ViolationIsAcquiredKit.class, "T2")).contains("T2");
    }

    @Test
    @DisplayName("E6 catches a claim that waits past its declared lock wait bound")
    void e6_waitsPastBound() {
        assertThat(KitRun.failedRules(WaitsPastItsBoundKit.class, "E6")).contains("E6");
    }

    @Test
    @DisplayName("E6 catches a store that answers ACQUIRED when its lock wait times out")
    void e6_timeoutIsAcquired() {
        assertThat(KitRun.failedRules(LockTimeoutIsAcquiredKit.class, "E6")).contains("E6");
    }

    @Test
    @DisplayName("T4 catches a batch claim that answers a repeated key as its first occurrence")
    void t4() {
        assertThat(KitRun.failedRules(BatchForgetsRepeatsKit.class, "T4")).contains("T4");
    }

    @Test
    @DisplayName("T3 catches a store that commits the caller's transaction")
    void t3() {
        assertThat(KitRun.failedRules(CommitsTheCallersTransactionKit.class, "T3"))
                .contains("T3");
    }
}
