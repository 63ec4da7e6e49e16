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
 * registered, gets its listener wrapped in an {@link InboxSqsListener}.
 *
 * <p><b>Scope.</b> Each message is claimed under the inbox's consumer scoped by the name of the
 * queue it came from ({@link SpringInbox#scoped}): an event is applied once per queue. The queue
 * name stays the same across deploys, whatever listeners are added, removed or reordered — unlike
 * a container's generated id ({@code …sqsListenerEndpointContainer#0}, a counter in declaration
 * order), which moves to another listener when one is declared before it, so that a re-sent event
 * would be applied again and another queue's event with the same producer id answered as its
 * duplicate. Two listeners on one queue compete for its messages, and so share its records; two
 * queues never share a scope. A listener on several queues scopes each message by its own queue.
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
    private final boolean perQueue;
    private final Map<String, ListenerCounts> counts = new ConcurrentHashMap<>();
    private final Map<String, SpringInbox> queueInboxes = new ConcurrentHashMap<>();

    /**
     * @param inbox the inbox the listeners claim in (scoped per queue)
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
     * an application whose one listener reads a queue, or whose queues must share their records (an
     * event sent to two of them is then applied once in all).
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
            boolean perQueue) {
        this.perQueue = perQueue;
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
        java.util.function.Function<String, SpringInbox> inboxes = this::inboxOf;
        abstractContainer.setAsyncMessageListener(new InboxSqsListener(
                inboxes, keys, abstractContainer.getMessageListener(), busyBackoff, counts(container.getId())));
    }

    /** The inbox the messages of {@code queue} (its name) are claimed in. */
    private SpringInbox inboxOf(String queue) {
        return perQueue ? queueInboxes.computeIfAbsent(queue, inbox::scoped) : inbox;
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
