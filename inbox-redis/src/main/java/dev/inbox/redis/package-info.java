/**
 * The Redis store on Lettuce: {@link dev.inbox.redis.RedisInboxStore} and {@link
 * dev.inbox.redis.RedisSequenceGuard}, on a standalone server or a Redis Cluster.
 */
@NullMarked
package dev.inbox.redis;

import org.jspecify.annotations.NullMarked;
