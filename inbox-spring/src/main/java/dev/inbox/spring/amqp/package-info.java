/**
 * Spring AMQP: {@link dev.inbox.spring.amqp.InboxRabbitAdvice}, for a listener container's advice
 * chain. Needs {@code spring-rabbit} and {@code inbox-rabbitmq} on the class path.
 */
@NullMarked
package dev.inbox.spring.amqp;

import org.jspecify.annotations.NullMarked;
