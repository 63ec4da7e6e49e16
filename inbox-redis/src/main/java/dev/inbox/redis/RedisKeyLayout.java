package dev.inbox.redis;

/**
 * How {@link RedisInboxStore} names the Redis key of a record, which decides the Cluster slot it
 * lives in. Both layouts keep every key exact (the consumer hex-encoded, the id as its bytes) and
 * let no key text move a record: the hash tag is always the store's own.
 */
public enum RedisKeyLayout {

    /**
     * {@code <prefix>:<consumer as hex>:{<tag>}:<id bytes>}, where the tag is 8 hex digits of a
     * CRC-32C over the consumer's and the id's bytes: every record has a hash tag of its own, so a
     * Redis Cluster spreads even one consumer's records evenly over all of its slots and primaries.
     * The default.
     */
    SPREAD,

    /**
     * {@code <prefix>:{<consumer as hex>}:<id bytes>}: the consumer is the hash tag, so a Cluster
     * keeps all of one consumer's records in one slot, on one primary. The layout of inbox 0.1;
     * choose it to keep serving records written by 0.1, or {@linkplain
     * RedisInboxStore#copyRecordsFrom(RedisKeyLayout) copy them} once before switching to {@link
     * #SPREAD}.
     */
    CONSUMER_SLOT
}
