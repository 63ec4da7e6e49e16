package dev.inbox.spring.sqs;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import dev.inbox.sqs.SqsKeys;
import io.awspring.cloud.sqs.config.EndpointRegistrar;
import io.awspring.cloud.sqs.config.SqsListenerConfigurer;
import io.awspring.cloud.sqs.listener.AbstractMessageListenerContainer;
import io.awspring.cloud.sqs.listener.ListenerMode;
import io.awspring.cloud.sqs.listener.MessageListenerContainer;
import io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry;
import io.awspring.cloud.sqs.listener.acknowledgement.handler.AcknowledgementMode;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deduplicates every {@code @SqsListener} of a Spring Cloud AWS application through the inbox:
 * register it as a bean ({@link SqsListenerConfigurer}) and each listener container, as it is
 * registered, gets its listener wrapped in an {@link InboxSqsListener}, with a consumer scope of
 * its own (the container's id: two listeners on one queue each apply every event once).
 *
 * <pre>{@code
 * @Bean
 * InboxSqsListeners inboxSqsListeners(SpringInbox inbox, MessageListenerContainerRegistry registry) {
 *     return new InboxSqsListeners(inbox, SqsKeys.attribute("event-id"), Duration.ofSeconds(1), registry);
 * }
 * }</pre>
 *
 * <p>A container whose acknowledgement mode is not {@code ON_SUCCESS} (with {@code ALWAYS} a
 * failed message would be deleted; with {@code MANUAL} a duplicate would never be), or that
 * listens in batch mode, is refused with {@link IllegalStateException} as the application starts.
 */
public final class InboxSqsListeners implements SqsListenerConfigurer {

    private final SpringInbox inbox;
    private final SqsKeys keys;
    private final Duration busyBackoff;
    private final MessageListenerContainerRegistry registry;
    private final boolean perListener;
    private final Map<String, ListenerCounts> counts = new ConcurrentHashMap<>();

    /**
     * @param inbox the inbox the listeners claim in (scoped per container)
     * @param keys where a message's dedup key comes from
     * @param busyBackoff how long a busy message stays hidden before SQS hands it out again (whole
     *     seconds, rounded up)
     * @param registry the application's registry of listener containers (the one Spring Cloud AWS
     *     registers as a bean), to which each container is passed on once wrapped
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} is negative
     */
    public InboxSqsListeners(
            SpringInbox inbox, SqsKeys keys, Duration busyBackoff, MessageListenerContainerRegistry registry) {
        this(inbox, keys, busyBackoff, registry, true);
    }

    /**
     * Like the constructor, but every listener claims under the inbox's own consumer, unscoped: for
     * an application whose one listener reads a queue, or whose listeners must share their records.
     *
     * @throws IllegalArgumentException if an argument is null or {@code busyBackoff} is negative
     */
    public static InboxSqsListeners sharingOneConsumer(
            SpringInbox inbox, SqsKeys keys, Duration busyBackoff, MessageListenerContainerRegistry registry) {
        return new InboxSqsListeners(inbox, keys, busyBackoff, registry, false);
    }

    private InboxSqsListeners(
            SpringInbox inbox,
            SqsKeys keys,
            Duration busyBackoff,
            MessageListenerContainerRegistry registry,
            boolean perListener) {
        this.perListener = perListener;
        this.inbox = requireNonNull(inbox, "inbox");
        this.keys = requireNonNull(keys, "keys");
        this.busyBackoff = dev.inbox.spi.InboxArguments.requireNonNegative(busyBackoff, "busyBackoff");
        this.registry = requireNonNull(registry, "registry");
    }

    @Override
    public void configure(EndpointRegistrar registrar) {
        registrar.setListenerContainerRegistry(new Wrapping());
    }

    /** What the listener of the container {@code containerId} did, or empty counts before its first message. */
    public ListenerCounts counts(String containerId) {
        return counts.computeIfAbsent(containerId, id -> new ListenerCounts());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void wrap(MessageListenerContainer<?> container) {
        if (!(container instanceof AbstractMessageListenerContainer abstractContainer)) {
            throw new IllegalStateException("inbox cannot deduplicate SQS listener container " + container.getId()
                    + " of type " + container.getClass().getName()
                    + ": only Spring Cloud AWS's own containers are supported");
        }
        var options = abstractContainer.getContainerOptions();
        if (options.getAcknowledgementMode() != AcknowledgementMode.ON_SUCCESS) {
            throw new IllegalStateException("SQS listener container " + container.getId() + " acknowledges "
                    + options.getAcknowledgementMode() + ": inbox deduplicates ON_SUCCESS listeners only (with"
                    + " ALWAYS a failed message would be deleted, with MANUAL a duplicate never would); remove"
                    + " the acknowledgementMode setting");
        }
        if (options.getListenerMode() == ListenerMode.BATCH) {
            throw new IllegalStateException("SQS listener container " + container.getId() + " listens in batch mode:"
                    + " inbox deduplicates single-message listeners only");
        }
        String scope = container.getId();
        abstractContainer.setAsyncMessageListener(new InboxSqsListener(
                perListener ? inbox.scoped(scope) : inbox,
                keys,
                abstractContainer.getMessageListener(),
                busyBackoff,
                counts(scope)));
    }

    /** The application's registry, each container wrapped on its way in. */
    private final class Wrapping implements MessageListenerContainerRegistry {

        @Override
        public void registerListenerContainer(MessageListenerContainer<?> container) {
            wrap(container);
            registry.registerListenerContainer(container);
        }

        @Override
        public Collection<MessageListenerContainer<?>> getListenerContainers() {
            return registry.getListenerContainers();
        }

        @Override
        public MessageListenerContainer<?> getContainerById(String id) {
            return registry.getContainerById(id);
        }

        // The registry bean itself starts and stops the containers; this view is never a bean.
        @Override
        public void start() {}

        @Override
        public void stop() {}

        @Override
        public boolean isRunning() {
            return registry.isRunning();
        }
    }
}
