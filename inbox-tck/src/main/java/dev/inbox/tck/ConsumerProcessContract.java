package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.spi.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rule E6 with a real consumer process: a JVM of its own ({@link JvmProcess}) claims keys in a
 * transaction, writes their business rows and then is killed with {@code SIGKILL}, or frozen with
 * {@code SIGSTOP} while its transaction is open. The test's own deliveries of those keys get a
 * bounded answer while it is frozen, and after it dies every event is applied exactly once. Needs
 * Unix signals.
 */
public abstract class ConsumerProcessContract {

    private static final int KEYS = 5;

    private TransactionalInboxStore store;
    private String consumer;

    /**
     * The factory the consumer process builds its store with: a public class with a public no-arg
     * constructor, building the same store as {@link #createStore()}.
     */
    protected abstract Class<? extends TransactionalStoreFactory> storeFactory();

    /** The database's JDBC URL, for the consumer process ({@link java.sql.DriverManager}). */
    protected abstract String jdbcUrl();

    /** The same database, for the test's own deliveries. */
    protected abstract DataSource dataSource();

    /** The store the test's own deliveries use: as the factory builds it. */
    protected abstract TransactionalInboxStore createStore() throws Exception;

    /** The lock wait bound the stores were built with. */
    protected abstract Duration lockWaitBound();

    /** What the kit allows past {@link #lockWaitBound()}; default 5 s. */
    protected Duration lockWaitSlack() {
        return Duration.ofSeconds(5);
    }

    @BeforeEach
    void open() throws Exception {
        consumer = TckSupport.freshConsumer();
        store = createStore();
        BusinessTable.create(dataSource());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    @DisplayName(
            "E6 a consumer process killed inside its transaction: the next deliveries are ACQUIRED, each event applied once")
    void e6_killedProcess() throws Exception {
        try (JvmProcess process = holding()) {
            CompletableFuture<Object> waiter = deliverLater("k0", "waiting");
            TckSupport.pause(Duration.ofMillis(300));
            process.kill();
            Object outcome = TransactionalStoreContract.waitFor(
                    waiter, "a delivery behind a killed consumer", lockWaitBound(), lockWaitSlack());
            assertThat(outcome)
                    .as("a delivery waiting on the killed consumer's key")
                    .satisfiesAnyOf(
                            o -> assertThat(o).isEqualTo(ClaimResult.acquired()),
                            o -> assertThat(o)
                                    .isInstanceOfSatisfying(
                                            InboxStoreException.class,
                                            e -> assertThat(e.isRetryable()).isTrue()));
        }
        redeliverAllAndCheckAppliedOnce();
    }

    @Test
    @DisplayName(
            "E6 a consumer process frozen inside its transaction: other deliveries fail retryably within the bound, then each event is applied once")
    void e6_frozenProcess() throws Exception {
        try (JvmProcess process = holding()) {
            process.suspend();
            long started = System.nanoTime();
            Object outcome = TransactionalStoreContract.waitFor(
                    deliverLater("k0", "while-frozen"),
                    "a delivery behind a frozen consumer",
                    lockWaitBound(),
                    lockWaitSlack());
            assertThat(outcome)
                    .as(
                            "while the frozen transaction is open nothing is known: a retryable failure, not an answer"
                                    + " (after %s)",
                            Duration.ofNanos(System.nanoTime() - started))
                    .isInstanceOfSatisfying(
                            InboxStoreException.class,
                            e -> assertThat(e.isRetryable()).isTrue());
            process.kill();
        }
        redeliverAllAndCheckAppliedOnce();
    }

    /** A consumer process holding every key, uncommitted. */
    private JvmProcess holding() {
        List<String> args = new ArrayList<>(List.of(storeFactory().getName(), jdbcUrl(), consumer));
        for (int i = 0; i < KEYS; i++) {
            args.add("k" + i);
        }
        JvmProcess process = JvmProcess.start(HoldingConsumer.class, args.toArray(String[]::new));
        process.awaitLine(HoldingConsumer.HOLDING, Duration.ofSeconds(60));
        return process;
    }

    private CompletableFuture<Object> deliverLater(String id, String delivery) {
        return CompletableFuture.supplyAsync(
                () -> BusinessTable.claimAndApply(store, dataSource(), InboxKey.of(consumer, id), delivery));
    }

    /** Redelivers every key, retrying retryable failures, and checks each was applied once. */
    private void redeliverAllAndCheckAppliedOnce() throws Exception {
        for (int i = 0; i < KEYS; i++) {
            Object outcome = null;
            for (int attempt = 0; attempt < 10; attempt++) {
                outcome =
                        BusinessTable.claimAndApply(store, dataSource(), InboxKey.of(consumer, "k" + i), "redelivery");
                if (!(outcome instanceof InboxStoreException e && e.isRetryable())) {
                    break;
                }
            }
            assertThat(outcome).as("redelivery of k%d", i).isInstanceOf(ClaimResult.class);
        }
        assertThat(BusinessTable.count(dataSource(), consumer + "/%/process"))
                .as("rows the dead consumer wrote but never committed")
                .isZero();
        for (int i = 0; i < KEYS; i++) {
            assertThat(BusinessTable.count(dataSource(), consumer + "/k" + i + "/%"))
                    .as("applications of k%d", i)
                    .isEqualTo(1);
        }
    }
}
