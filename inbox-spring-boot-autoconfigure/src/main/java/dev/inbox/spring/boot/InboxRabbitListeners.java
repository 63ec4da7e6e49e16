package dev.inbox.spring.boot;

import dev.inbox.rabbitmq.KeylessMessages;
import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.amqp.InboxRabbitAdvice;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Puts the {@link InboxRabbitAdvice} first in the advice chain of every Rabbit listener container
 * factory, before the retry advice Spring Boot configures, so each {@code @RabbitListener} is
 * deduplicated, each queue under a consumer of its own ({@code <inbox.consumer>/<queue>}). With
 * {@code inbox.rabbit.transactional=true} the factories also get the
 * DataSource's transaction manager, so the claim joins the listener's database transaction.
 */
final class InboxRabbitListeners implements BeanPostProcessor {

    private final ObjectProvider<SpringInbox> inbox;
    private final ObjectProvider<InboxProperties> properties;
    private final ObjectProvider<PlatformTransactionManager> transactions;
    private final ObjectProvider<MessageKeys> keys;
    private @Nullable InboxRabbitAdvice advice;

    InboxRabbitListeners(
            ObjectProvider<SpringInbox> inbox,
            ObjectProvider<InboxProperties> properties,
            ObjectProvider<PlatformTransactionManager> transactions,
            ObjectProvider<MessageKeys> keys) {
        this.inbox = inbox;
        this.properties = properties;
        this.transactions = transactions;
        this.keys = keys;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractRabbitListenerContainerFactory<?> factory) {
            InboxProperties.RabbitListeners settings = properties.getObject().getRabbit();
            advice(settings).putFirstIn(factory); // InboxRabbitAckModes checks the acknowledge modes at startup
            if (settings.isTransactional()) {
                factory.setTransactionManager(InboxAutoConfiguration.transactionManager(
                        inbox.getObject(), transactions, "inbox.rabbit.transactional"));
            }
        }
        return bean;
    }

    private synchronized InboxRabbitAdvice advice(InboxProperties.RabbitListeners settings) {
        if (advice == null) {
            advice = InboxRabbitAdvice.perQueue(
                            inbox.getObject(),
                            InboxAutoConfiguration.keys(
                                    keys,
                                    settings.getKeyHeader(),
                                    "inbox.rabbit.key-header",
                                    MessageKeys::header,
                                    MessageKeys::standard,
                                    properties.getObject(),
                                    MessageKeys::refusingCopiesOlderThan),
                            settings.getBusyBackoff())
                    .keylessMessages(
                            settings.getKeylessMessages() == InboxProperties.Keyless.DEAD_LETTER
                                    ? KeylessMessages.DEAD_LETTER
                                    : KeylessMessages.HOLD);
        }
        return advice;
    }

    /** The advice put in the factories' chains, once one was. */
    @Nullable
    InboxRabbitAdvice advice() {
        return advice;
    }
}
