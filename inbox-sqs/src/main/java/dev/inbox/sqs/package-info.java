/**
 * The Amazon SQS adapter: {@link dev.inbox.sqs.SqsInboxLoop}, a consumer loop on AWS SDK v2 that
 * runs each received message through an inbox, with {@link dev.inbox.sqs.SqsKeys} for where the
 * dedup key comes from and {@link dev.inbox.sqs.SqsMessage} for SNS envelopes unwrapped.
 */
@NullMarked
package dev.inbox.sqs;

import org.jspecify.annotations.NullMarked;
