package dev.inbox.redis;

/**
 * How the Redis server keeps its data across a restart, as {@code CONFIG GET} reports it
 * ({@link RedisInboxStore#checkPersistence(java.time.Duration)}).
 *
 * @param known false when the server refused {@code CONFIG} (managed services often do): the other
 *     fields then say nothing
 * @param appendOnly {@code appendonly yes}: every write is logged (and, with {@code appendfsync
 *     always}, on disk before the reply)
 * @param snapshots {@code save} is set: the data set is written to disk from time to time, and a
 *     restart loses what came after the last snapshot
 */
public record RedisPersistence(boolean known, boolean appendOnly, boolean snapshots) {

    /** True when a restart of the server loses every record: neither the log nor snapshots. */
    public boolean losesEverythingOnRestart() {
        return known && !appendOnly && !snapshots;
    }
}
