package dev.inbox.spring.boot;

import java.util.ArrayList;
import java.util.List;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.context.SmartLifecycle;

/**
 * Refuses, just before the listener registry starts them, the {@code @RabbitListener} containers
 * that acknowledge manually — the listener acknowledges there, so the inbox's advice could neither
 * hold back a message whose event another delivery holds nor acknowledge a duplicate it skipped,
 * the prefetch would drain and the consumer stall — or not at all ({@code NONE}: the broker forgets
 * each message as it sends it, so a BUSY or failed one is lost).
 */
final class InboxRabbitAckModes implements SmartLifecycle {

    private final RabbitListenerEndpointRegistry registry;
    private volatile boolean running;

    InboxRabbitAckModes(RabbitListenerEndpointRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void start() {
        List<String> manual = new ArrayList<>();
        List<String> none = new ArrayList<>();
        for (MessageListenerContainer container : registry.getListenerContainers()) {
            if (container instanceof AbstractMessageListenerContainer found) {
                if (found.getAcknowledgeMode() == AcknowledgeMode.MANUAL) {
                    manual.add(found.getListenerId());
                } else if (found.getAcknowledgeMode() == AcknowledgeMode.NONE) {
                    none.add(found.getListenerId());
                }
            }
        }
        if (!manual.isEmpty()) {
            throw new IllegalStateException("inbox: the @RabbitListener containers " + manual + " acknowledge"
                    + " manually (AcknowledgeMode.MANUAL), which the inbox cannot make safe: a BUSY message would"
                    + " never be requeued and a skipped duplicate never acknowledged. Use AUTO (the default) and let"
                    + " the listener throw to reject, or set inbox.rabbit.enabled=false and call SpringInbox.handle"
                    + " in the listener yourself");
        }
        if (!none.isEmpty()) {
            throw new IllegalStateException("inbox: the @RabbitListener containers " + none + " take messages"
                    + " without acknowledgements (AcknowledgeMode.NONE): the broker forgets each message as it"
                    + " sends it, so a BUSY message, failed work or a store outage loses the event. Use AUTO (the"
                    + " default): remove ackMode = \"NONE\" or spring.rabbitmq.listener.*.acknowledge-mode=none");
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
