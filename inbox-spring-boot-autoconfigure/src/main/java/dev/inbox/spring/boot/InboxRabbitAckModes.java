package dev.inbox.spring.boot;

import dev.inbox.spring.amqp.InboxRabbitAdvice;
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
        for (AcknowledgeMode mode : new AcknowledgeMode[] {AcknowledgeMode.MANUAL, AcknowledgeMode.NONE}) {
            List<String> refused = new ArrayList<>();
            for (MessageListenerContainer container : registry.getListenerContainers()) {
                if (container instanceof AbstractMessageListenerContainer found && found.getAcknowledgeMode() == mode) {
                    refused.add(found.getListenerId());
                }
            }
            if (!refused.isEmpty()) {
                throw new IllegalStateException("inbox: the @RabbitListener containers " + refused + " "
                        + InboxRabbitAdvice.unsafeAcknowledgeMode(mode)
                        + (mode == AcknowledgeMode.MANUAL
                                ? " (inbox.rabbit.enabled=false leaves every listener out)"
                                : " (or spring.rabbitmq.listener.*.acknowledge-mode=none)"));
            }
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
