package dev.inbox.spring.boot;

import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.kafka.InboxBatchInterceptor;
import dev.inbox.spring.kafka.InboxKafka;
import dev.inbox.spring.kafka.InboxRecordInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Installs the inbox in the containers of the application's {@code @KafkaListener} methods (all of
 * them, or those of {@code inbox.kafka.listener-ids}) just before the listener registry starts
 * them: an {@link InboxRecordInterceptor} for a record listener, an {@link InboxBatchInterceptor}
 * for a batch listener, composed with any interceptor the application set and with the error
 * handling of {@link InboxKafka#configure}. No interceptor bean is defined, so an application's
 * own stays the one Spring Boot wires. A share-group listener (Spring Kafka 4.1) is deduplicated by
 * the inbox's own share containers (module {@code inbox-spring-kafka-share}, factory {@code
 * inboxShareListenerContainerFactory}); one on Spring's share container fails the startup, saying so.
 *
 * <p>Each consumer group is an inbox consumer of its own, {@code <inbox.consumer>/<group id>}: two
 * listeners with different groups that receive the same event each apply it once; listeners of
 * one group share its claims, as they share its partitions. With {@code
 * inbox.kafka.transactional=true} each container also runs its listener in a transaction of the
 * DataSource's transaction manager, which the claim joins. A failing listener is retried every busy back-off and
 * never committed past, unless the application defines its own error handler (a {@code
 * CommonErrorHandler} bean) or, in transactional mode, its own {@code AfterRollbackProcessor} bean.
 */
public final class InboxKafkaListeners implements SmartLifecycle {

    private final KafkaListenerEndpointRegistry registry;
    private final SpringInbox inbox;
    /** Spring Kafka's share containers' base class (4.1), named: this module builds on Spring Kafka 4.0. */
    private static final String SHARE_CONTAINER =
            "org.springframework.kafka.listener.AbstractShareKafkaMessageListenerContainer";

    private static final String INBOX_SHARE_CONTAINER = "dev.inbox.spring.kafka.share.InboxShareListenerContainer";

    private final RecordKeys keys;
    private final List<String> listenerIds;
    private final Duration busyBackoff;
    private final @Nullable PlatformTransactionManager transactions;
    private final boolean ownRollbackProcessor;
    private final Map<String, InboxRecordInterceptor<Object, Object>> records = new ConcurrentHashMap<>();
    private final Map<String, InboxBatchInterceptor<Object, Object>> batches = new ConcurrentHashMap<>();
    private final List<String> deduplicated = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean running;

    InboxKafkaListeners(
            KafkaListenerEndpointRegistry registry,
            SpringInbox inbox,
            InboxProperties.KafkaListeners properties,
            RecordKeys keys,
            @Nullable PlatformTransactionManager transactions,
            boolean ownRollbackProcessor) {
        this.registry = registry;
        this.inbox = inbox;
        this.keys = keys;
        this.listenerIds = List.copyOf(properties.getListenerIds());
        this.busyBackoff = properties.getBusyBackoff();
        this.transactions = transactions;
        this.ownRollbackProcessor = ownRollbackProcessor;
    }

    /** Records whose listener ran, over every container. */
    public long processed() {
        return total(ListenerCounts::processed);
    }

    /** Records skipped as duplicates, over every container. */
    public long duplicates() {
        return total(ListenerCounts::duplicates);
    }

    private long total(ToLongFunction<ListenerCounts> count) {
        return records.values().stream()
                        .mapToLong(i -> count.applyAsLong(i.counts()))
                        .sum()
                + batches.values().stream()
                        .mapToLong(i -> count.applyAsLong(i.counts()))
                        .sum();
    }

    /**
     * The deduplicated listeners whose container stopped abnormally — stopped by its error handler
     * (the inbox's stops a container at a record without a dedup key, rather than skip it), or an
     * inbox share container whose members ended by a throw — and was not started again: they
     * consume nothing until they are.
     */
    public List<String> stoppedAbnormally() {
        List<String> stopped = new java.util.ArrayList<>();
        for (String id : deduplicated) {
            MessageListenerContainer container = registry.getListenerContainer(id);
            if (container != null && !container.isInExpectedState()) {
                stopped.add(id);
            }
        }
        return stopped;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void start() {
        for (MessageListenerContainer candidate : registry.getListenerContainers()) {
            refuseUndeduplicatedShares(candidate);
            if (candidate.getClass().getName().equals(INBOX_SHARE_CONTAINER)) {
                deduplicated.add(candidate.getListenerId()); // for stoppedAbnormally(): it deduplicates itself
                continue;
            }
            if (!(candidate instanceof AbstractMessageListenerContainer<?, ?> found)
                    || (!listenerIds.isEmpty() && !listenerIds.contains(found.getListenerId()))) {
                continue;
            }
            AbstractMessageListenerContainer<Object, Object> container =
                    (AbstractMessageListenerContainer<Object, Object>) found;
            useTransactions(container);
            deduplicated.add(container.getListenerId());
            String group = container.getGroupId();
            String scope = group == null || group.isEmpty() ? container.getListenerId() : group;
            if (container.getContainerProperties().getMessageListener() instanceof BatchMessageListener<?, ?>) {
                InboxKafka.configure(
                        container,
                        batches.computeIfAbsent(
                                scope, s -> new InboxBatchInterceptor<>(inbox.scoped(s), keys, busyBackoff)),
                        busyBackoff);
            } else {
                InboxKafka.configure(
                        container,
                        records.computeIfAbsent(scope, s -> new InboxRecordInterceptor<>(inbox.scoped(s), keys)),
                        busyBackoff);
            }
        }
        running = true;
    }

    /**
     * A share-group listener (Spring Kafka 4.1) on Spring's own share container: no interceptor
     * reaches it, so it would silently stay undeduplicated. The inbox's share containers (module
     * inbox-spring-kafka-share) deduplicate themselves.
     */
    private void refuseUndeduplicatedShares(MessageListenerContainer candidate) {
        String id = candidate.getListenerId();
        if (!isShareContainer(candidate.getClass())
                || candidate.getClass().getName().equals(INBOX_SHARE_CONTAINER)
                || (!listenerIds.isEmpty() && !listenerIds.contains(id))) {
            return;
        }
        throw new IllegalStateException("inbox: @KafkaListener " + id + " consumes a share group through Spring"
                + " Kafka's own share container, which the inbox cannot reach: it would not be deduplicated. Add"
                + " dev.inbox:inbox-spring-kafka-share and name its factory, @KafkaListener(containerFactory ="
                + " \"inboxShareListenerContainerFactory\"), or leave the listener out with inbox.kafka.listener-ids");
    }

    private static boolean isShareContainer(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(SHARE_CONTAINER)) {
                return true;
            }
        }
        return false;
    }

    private void useTransactions(AbstractMessageListenerContainer<?, ?> container) {
        if (transactions == null) {
            return;
        }
        if (container.getContainerProperties().getTransactionManager() instanceof KafkaAwareTransactionManager<?, ?>) {
            throw new IllegalStateException("inbox.kafka.transactional=true: listener " + container.getListenerId()
                    + " already runs in Kafka transactions; give it the DataSource's transaction manager instead,"
                    + " or set inbox.kafka.transactional=false");
        }
        container.getContainerProperties().setTransactionManager(transactions);
        if (!ownRollbackProcessor) {
            // Spring Kafka's default processor would skip a record after ten failed attempts.
            container.setAfterRollbackProcessor(InboxKafka.afterRollbackProcessor(busyBackoff));
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Just before the listener registry, which starts the containers. */
    @Override
    public int getPhase() {
        return registry.getPhase() - 1;
    }
}
