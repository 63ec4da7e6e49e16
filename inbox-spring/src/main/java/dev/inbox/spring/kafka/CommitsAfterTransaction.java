package dev.inbox.spring.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.apache.kafka.clients.consumer.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.ConsumerPostProcessor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes the consumers of a consumer factory commit their offsets only after the database
 * transaction the container runs its listener in has committed: an offset commit ({@code
 * commitSync}, {@code commitAsync}) made while a Spring-managed transaction is active on the
 * consumer's thread is held and made once that transaction commits, and dropped if it rolls back
 * (the container seeks back to the records, which come again).
 *
 * <p>Why: with a {@code DataSourceTransactionManager} (or a {@code JpaTransactionManager}) as the
 * container's transaction manager, Spring Kafka 4.0 commits a <em>batch</em> listener's offsets
 * inside that transaction, before it commits — and a record listener's too with {@code
 * AckMode.RECORD}, {@code COUNT} or {@code TIME}. A process that dies between the two has committed
 * the offsets of records whose writes and claims it never committed: they are never delivered
 * again, and the events are lost. With this post-processor the offsets follow the transaction, so
 * such a death leaves the records to be delivered again, and their events, committed or not, are
 * applied once (adapter kit rule A14, {@code TransactionalBatchInterceptorKitTest}).
 *
 * <pre>{@code
 * consumerFactory.addPostProcessor(new CommitsAfterTransaction<>());
 * }</pre>
 *
 * <p>The Spring Boot starter adds it to the application's consumer factories when {@code
 * inbox.kafka.transactional=true}. Outside a transaction (lease mode, Kafka transactions, which
 * commit offsets with the producer) it changes nothing.
 */
public final class CommitsAfterTransaction<K, V> implements ConsumerPostProcessor<K, V> {

    /** A consumer whose offset commits wait for the transaction on its thread, if any. */
    @Override
    @SuppressWarnings("unchecked")
    public Consumer<K, V> apply(Consumer<K, V> consumer) {
        return (Consumer<K, V>) Proxy.newProxyInstance(
                Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("commit")
                            && TransactionSynchronizationManager.isSynchronizationActive()
                            && TransactionSynchronizationManager.isActualTransactionActive()) {
                        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                            @Override
                            public void afterCommit() {
                                invoke(consumer, method, args);
                            }
                        });
                        return null; // commitSync and commitAsync return nothing
                    }
                    if (method.getName().equals("toString") && method.getParameterCount() == 0) {
                        return "CommitsAfterTransaction[" + consumer + "]";
                    }
                    return invoke(consumer, method, args);
                });
    }

    private static @Nullable Object invoke(Object target, Method method, @Nullable Object[] args) {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
