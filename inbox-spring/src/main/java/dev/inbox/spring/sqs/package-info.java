/**
 * Spring Cloud AWS SQS: {@link dev.inbox.spring.sqs.InboxSqsListeners} wraps the listener of every
 * {@code @SqsListener} container in an {@link dev.inbox.spring.sqs.InboxSqsListener}, with the key
 * chosen by {@link dev.inbox.sqs.SqsKeys}.
 */
@NullMarked
package dev.inbox.spring.sqs;

import org.jspecify.annotations.NullMarked;
