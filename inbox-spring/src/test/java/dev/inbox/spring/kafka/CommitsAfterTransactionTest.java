package dev.inbox.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

/**
 * When {@link CommitsAfterTransaction} lets an offset commit reach the consumer: at once outside a
 * transaction, after the commit inside one, never after a rollback. The consumer here only records
 * the calls that reach it; the same post-processor on the real broker is what rule A14 proves in
 * {@code TransactionalBatchInterceptorKitTest} (red without it: Spring Kafka commits a batch's
 * offsets inside the listener's transaction).
 */
class CommitsAfterTransactionTest {

    private final List<String> reached = new CopyOnWriteArrayList<>();

    @SuppressWarnings("unchecked")
    private final Consumer<String, String> consumer = new CommitsAfterTransaction<String, String>().apply((Consumer<
                    String, String>)
            Proxy.newProxyInstance(
                    Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                        reached.add(method.getName());
                        return null;
                    }));

    @AfterEach
    void endTransaction() {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.clearSynchronization();
        }
        TransactionSynchronizationManager.setActualTransactionActive(false);
    }

    private static void begin() {
        TransactionSynchronizationManager.initSynchronization();
        TransactionSynchronizationManager.setActualTransactionActive(true);
    }

    @Test
    void outsideATransaction_aCommitReachesTheConsumerAtOnce() {
        consumer.commitSync();
        consumer.commitAsync();
        assertThat(reached).containsExactly("commitSync", "commitAsync");
    }

    @Test
    void insideATransaction_aCommitWaitsForTheTransactionsCommit() {
        begin();
        consumer.commitSync();
        consumer.poll(java.time.Duration.ZERO);
        assertThat(reached).as("calls before the transaction commits").containsExactly("poll");
        List<TransactionSynchronization> synchronizations = TransactionSynchronizationManager.getSynchronizations();
        TransactionSynchronizationUtils.invokeAfterCommit(synchronizations);
        assertThat(reached).containsExactly("poll", "commitSync");
    }

    @Test
    void insideATransactionThatRollsBack_aCommitNeverReachesTheConsumer() {
        begin();
        consumer.commitSync();
        TransactionSynchronizationUtils.invokeAfterCompletion(
                TransactionSynchronizationManager.getSynchronizations(), TransactionSynchronization.STATUS_ROLLED_BACK);
        assertThat(reached).isEmpty();
    }
}
