package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RedisProcesses;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a crash of the Redis server (SIGKILL, then a restart on the same port and directory) does to
 * the inbox, on servers this test starts. Without persistence every record is gone: redeliveries
 * of completed events are ACQUIRED and applied again. With {@code appendonly yes} and {@code
 * appendfsync always}, every completion the store acknowledged survives, and so do live leases.
 */
@Timeout(120)
class RedisPersistenceFaultTest {

    private static final int COMPLETED = 200;
    private static final int HELD = 20;
    private static final Duration RECOVERY = Duration.ofSeconds(30);

    @Test
    void withoutPersistence_aCrashForgetsEveryCompletionAndLease() throws Exception {
        Survivors survivors = crashAfterWriting(false);
        assertThat(survivors.completed()).as("completions that survived").isZero();
        assertThat(survivors.held()).as("leases that survived").isZero();
    }

    @Test
    void withAppendfsyncAlways_everyAcknowledgedCompletionAndLeaseSurvivesACrash() throws Exception {
        Survivors survivors = crashAfterWriting(true);
        assertThat(survivors.completed()).as("completions that survived").isEqualTo(COMPLETED);
        assertThat(survivors.held()).as("leases that survived").isEqualTo(HELD);
    }

    private record Survivors(int completed, int held) {}

    private static Survivors crashAfterWriting(boolean durable) throws Exception {
        String consumer = "persistence-" + UUID.randomUUID();
        try (RedisProcesses server = RedisProcesses.standalone(durable);
                RedisInboxStore store = RedisTestStores.storeOn(server, Duration.ofSeconds(2))) {
            for (int i = 0; i < COMPLETED + HELD; i++) {
                InboxKey key = InboxKey.of(consumer, "event-" + i);
                OwnerToken owner = OwnerToken.random();
                assertThat(store.claim(ClaimRequest.of(key, owner, Duration.ofMinutes(10))))
                        .isEqualTo(ClaimResult.acquired());
                if (i < COMPLETED) {
                    assertThat(store.complete(key, owner, Duration.ofHours(1)))
                            .as("acknowledged")
                            .isTrue();
                }
            }
            server.crash();
            server.restart();
            int completed = 0;
            int held = 0;
            for (int i = 0; i < COMPLETED + HELD; i++) {
                ClaimRequest redelivery = ClaimRequest.of(
                        InboxKey.of(consumer, "event-" + i), OwnerToken.random(), Duration.ofMinutes(10));
                ClaimStatus status = claimOnceReconnected(store, redelivery).status();
                if (i < COMPLETED && status == ClaimStatus.DUPLICATE) {
                    completed++;
                } else if (i >= COMPLETED && status == ClaimStatus.BUSY) {
                    held++;
                }
            }
            return new Survivors(completed, held);
        }
    }

    /** The first claim after the restart may wait for the client to reconnect. */
    private static ClaimResult claimOnceReconnected(RedisInboxStore store, ClaimRequest request)
            throws InterruptedException {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        while (true) {
            try {
                return store.claim(request);
            } catch (InboxStoreException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the store did not reconnect within " + RECOVERY, e);
                }
                Thread.sleep(100);
            }
        }
    }
}
