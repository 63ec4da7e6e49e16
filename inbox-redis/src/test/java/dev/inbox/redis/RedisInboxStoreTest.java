package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxKey;
import dev.inbox.SequenceGuard;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import dev.inbox.tck.SequenceGuardContract;
import dev.inbox.tck.StoreFailureContract;
import dev.inbox.testing.RedisProcesses;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class RedisInboxStoreTest extends RedisServersTest {

    @Nested
    class StandaloneKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return RedisInboxStore.builder(standalone)
                    .prefix("inbox-it")
                    .grace(grace)
                    .build();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    /** The whole kit on a Cluster (extended: the default build runs the kit on the standalone server). */
    @Nested
    @Tag("extended")
    class ClusterKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return RedisInboxStore.builder(cluster)
                    .prefix("inbox-it")
                    .grace(grace)
                    .build();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    /** The whole kit again on the layout of inbox 0.1, which users upgrading may keep. */
    @Nested
    @Tag("extended")
    class ClusterConsumerSlotKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            return RedisInboxStore.builder(cluster)
                    .prefix("inbox-it")
                    .keyLayout(RedisKeyLayout.CONSUMER_SLOT)
                    .grace(grace)
                    .build();
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    @Nested
    class StandaloneSequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return RedisInboxStore.builder(standalone)
                    .prefix("inbox-it")
                    .build()
                    .sequenceGuard();
        }
    }

    @Nested
    class ClusterSequenceKit extends SequenceGuardContract {
        @Override
        protected SequenceGuard createGuard() {
            return RedisInboxStore.builder(cluster).prefix("inbox-it").build().sequenceGuard();
        }
    }

    @Nested
    class FailureKit extends StoreFailureContract {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return RedisTestStores.storeAt(host, port, timeout);
        }

        @Override
        protected boolean purgeTalksToServer() {
            return false;
        }
    }

    // ------------------------------------------------------------------------ Redis-specific tests

    private final String consumer = "redis-" + UUID.randomUUID();

    @Test
    void consumerSlotLayout_keepsOneConsumerInOneSlot_whateverBracesTheIdHolds() {
        RedisKeys keys = RedisKeys.of("inbox", RedisKeyLayout.CONSUMER_SLOT);
        int slot = SlotHash.getSlot(keys.record(InboxKey.of(consumer, "plain")));
        for (String id : List.of("{other}", "}{", "a{b}c", "{", "}", "{}x")) {
            assertThat(SlotHash.getSlot(keys.record(InboxKey.of(consumer, id))))
                    .as(id)
                    .isEqualTo(slot);
        }
        assertThat(SlotHash.getSlot(keys.record(InboxKey.of("}", "x"))))
                .as("a brace in the consumer cannot end the tag")
                .isEqualTo(SlotHash.getSlot(keys.record(InboxKey.of("}", "y"))));
    }

    @Test
    void spreadLayout_givesEachKeyItsOwnTag_whateverBracesTheIdHolds() {
        RedisKeys keys = RedisKeys.of("inbox"); // a fixed consumer: the slots compared are fixed too
        for (String id : List.of("{other}", "}{", "a{b}c", "{", "}", "{}x")) {
            byte[] record = keys.record(InboxKey.of("billing", id));
            byte[] alone =
                    keys.record(InboxKey.of("billing", id.replace("{", "").replace("}", "") + "-"));
            assertThat(new String(record, java.nio.charset.StandardCharsets.UTF_8))
                    .as("the store's tag comes first")
                    .matches("inbox:[0-9a-f]+:\\{[0-9a-f]{8}}:.*");
            assertThat(SlotHash.getSlot(record)).as(id).isNotEqualTo(SlotHash.getSlot(alone));
        }
        assertThat(SlotHash.getSlot(keys.record(InboxKey.of("billing", "a"))))
                .isNotEqualTo(SlotHash.getSlot(keys.record(InboxKey.of("billing", "b"))));
    }

    @Test
    void prefix_isValidated() {
        for (String bad : new String[] {"", "in{box", "in}box", "in box", "x".repeat(65)}) {
            assertThatThrownBy(() -> RedisInboxStore.builder(standalone).prefix(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefix");
        }
    }

    @Test
    void records_expireNatively_atExpiryPlusGrace() throws InterruptedException {
        try (RedisInboxStore store = RedisInboxStore.builder(standalone)
                .prefix("inbox-it")
                .grace(Duration.ofMillis(100))
                .build()) {
            InboxKey key = InboxKey.of(consumer, "ttl");
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(key, owner, Duration.ofMinutes(1)));
            store.complete(key, owner, Duration.ofMillis(200));
            try (var connection = standalone.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
                long ttl = connection.sync().pttl(RedisKeys.of("inbox-it").record(key));
                assertThat(ttl).as("TTL = retention + grace").isBetween(1L, 300L);
                Thread.sleep(400);
                assertThat(connection.sync().exists(RedisKeys.of("inbox-it").record(key)))
                        .isZero();
            }
            assertThat(store.claim(ClaimRequest.of(key, OwnerToken.random(), Duration.ofMinutes(1))))
                    .isEqualTo(ClaimResult.acquired());
        }
    }

    /**
     * Rule C5 for real: the claim reaches a paused server, times out on the client, and is applied
     * when the server resumes. Retrying with the same owner must answer ACQUIRED, never
     * DUPLICATE or BUSY, or the message would be dropped.
     */
    @Test
    void claimApplied_afterItsReplyWasLost_isAcquiredAgainByTheSameOwner() throws Exception {
        try (RedisProcesses server = RedisProcesses.standalone(false);
                RedisInboxStore store = RedisTestStores.storeOn(server, Duration.ofMillis(300))) {
            InboxKey key = InboxKey.of(consumer, "ambiguous");
            OwnerToken owner = OwnerToken.random();
            ClaimRequest request = ClaimRequest.of(key, owner, Duration.ofMinutes(1));
            server.pause();
            try {
                assertThatThrownBy(() -> store.claim(request))
                        .isInstanceOf(dev.inbox.InboxStoreException.class)
                        .satisfies(e -> assertThat(((dev.inbox.InboxStoreException) e).isRetryable())
                                .isTrue());
            } finally {
                server.resume();
            }
            Thread.sleep(200); // the server now runs the claim it had received
            assertThat(store.claim(request)).as("the same owner's retry").isEqualTo(ClaimResult.acquired());
            assertThat(store.claim(ClaimRequest.of(key, OwnerToken.random(), Duration.ofMinutes(1))))
                    .as("the first claim did hold the key")
                    .isEqualTo(ClaimResult.busy());
        }
    }

    @Test
    void sequenceGuard_rejectsNumbersLuaCannotCompareExactly() {
        try (RedisInboxStore store =
                RedisInboxStore.builder(standalone).prefix("inbox-it").build()) {
            assertThatThrownBy(() -> store.sequenceGuard().advance(InboxKey.of(consumer, "e"), (1L << 53) + 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
