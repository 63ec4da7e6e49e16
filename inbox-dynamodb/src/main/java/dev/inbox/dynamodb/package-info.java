/**
 * The DynamoDB store on AWS SDK v2: {@link dev.inbox.dynamodb.DynamoDbInboxStore} and {@link
 * dev.inbox.dynamodb.DynamoDbSequenceGuard}.
 */
@NullMarked
package dev.inbox.dynamodb;

import org.jspecify.annotations.NullMarked;
