package dev.inbox.spring.boot;

import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.kafka.InboxKafka;
import dev.inbox.spring.kafka.InboxRecordInterceptor;
import java.time.Duration;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Installs the {@link InboxRecordInterceptor} in the containers of the application's
 * {@code @KafkaListener} methods (all of them, or those of {@code inbox.kafka.listener-ids}) just
 * before the listener registry starts them, composed with any interceptor the application set and
 * with the error handling of {@link InboxKafka#configure}. No {@code RecordInterceptor} bean is
 * defined, so an application's own stays the one Spring Boot wires. With {@code
 * inbox.kafka.transactional=true} each container also runs its listener in a transaction of the
 * DataSource's transaction manager, which the claim joins.
 */
public final class InboxKafkaListeners implements SmartLifecycle {

    private static final Log log = LogFactory.getLog(InboxKafkaListeners.class);

    private final KafkaListenerEndpointRegistry registry;
    private final InboxRecordInterceptor<Object, Object> interceptor;
    private final List<String> listenerIds;
    private final Duration busyBackoff;
    private final @Nullable PlatformTransactionManager transactions;
    private volatile boolean running;

    InboxKafkaListeners(
            KafkaListenerEndpointRegistry registry,
            SpringInbox inbox,
            InboxProperties.KafkaListeners properties,
            @Nullable PlatformTransactionManager transactions) {
        this.registry = registry;
        String header = properties.getKeyHeader();
        this.interceptor =
                new InboxRecordInterceptor<>(inbox, header == null ? RecordKeys.standard() : RecordKeys.header(header));
        this.listenerIds = List.copyOf(properties.getListenerIds());
        this.busyBackoff = properties.getBusyBackoff();
        this.transactions = transactions;
    }

    /** The interceptor installed in the listeners' containers, for its counts. */
    public InboxRecordInterceptor<Object, Object> interceptor() {
        return interceptor;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void start() {
        for (MessageListenerContainer candidate : registry.getListenerContainers()) {
            if (!(candidate instanceof AbstractMessageListenerContainer<?, ?> container)
                    || (!listenerIds.isEmpty() && !listenerIds.contains(container.getListenerId()))) {
                continue;
            }
            if (container.getContainerProperties().getMessageListener() instanceof BatchMessageListener<?, ?>) {
                log.warn("inbox: listener " + container.getListenerId() + " is a batch listener, which a record"
                        + " interceptor does not see; it is not deduplicated");
                continue;
            }
            if (transactions != null) {
                PlatformTransactionManager own =
                        container.getContainerProperties().getTransactionManager();
                if (own instanceof KafkaAwareTransactionManager<?, ?>) {
                    throw new IllegalStateException("inbox.kafka.transactional=true: listener "
                            + container.getListenerId() + " already runs in Kafka transactions; give it the"
                            + " DataSource's transaction manager instead, or set inbox.kafka.transactional=false");
                }
                container.getContainerProperties().setTransactionManager(transactions);
            }
            InboxKafka.configure(
                    (AbstractMessageListenerContainer<Object, Object>) container, interceptor, busyBackoff);
        }
        running = true;
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
