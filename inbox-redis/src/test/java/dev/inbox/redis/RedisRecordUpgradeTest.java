package dev.inbox.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.InboxStoreContract;
import io.lettuce.core.ScriptOutputType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Records of plain new-key claims ({@link RedisInboxStore.Builder#plainNewKeyClaims}) beside the
 * claims of code from before them, on one keyspace, as in a rolling deploy: the whole store kit on a
 * store whose claims take turns between the two ways, and what the code from before makes of a
 * plain claim's record. "The code from before" is the claim script of the commit before plain
 * claims ({@code claim-before-lease-in-ttl.lua}, a copy of it); the other scripts did not change.
 */
class RedisRecordUpgradeTest extends RedisServersTest {

    /** Plain claims on and off, taking turns: the two kinds of record, each read by both. */
    @Nested
    @Tag("extended")
    class PlainAndScriptClaimsKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            RedisInboxStore plain = store(grace, true);
            RedisInboxStore script = store(grace, false);
            return takingTurns(plain, List.of(plain::claim, script::claim), script);
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    /**
     * The first step of an upgrade: this code with plain claims off, beside the code from before.
     * Their records are alike, and each reads the other's.
     */
    @Nested
    @Tag("extended")
    class BeforeAndAfterUpgradeKit extends InboxStoreContract {
        @Override
        protected InboxStore createStore(Duration grace) {
            RedisInboxStore script = store(grace, false);
            return takingTurns(script, List.of(script::claim, beforePlainClaims(script, grace)), null);
        }

        @Override
        protected boolean purgeRemovesAllExpired() {
            return false;
        }
    }

    @Test
    void codeFromBefore_readsAPlainClaimAsBusy_untilItsTtlEnds_andNeverTakesItEarly() throws Exception {
        Duration grace = Duration.ofMillis(600);
        try (RedisInboxStore plain = store(grace, true)) {
            Function<ClaimRequest, ClaimResult> before = beforePlainClaims(plain, grace);
            String consumer = "upgrade-" + UUID.randomUUID();
            InboxKey key = InboxKey.of(consumer, "e-1");
            byte[] name = plain.keys().record(key);
            assertThat(plain.claim(ClaimRequest.of(key, OwnerToken.random(), Duration.ofMillis(300))))
                    .isEqualTo(ClaimResult.acquired());
            assertThat(new String(plain.redis().sync.get(name), StandardCharsets.US_ASCII))
                    .as("a plain claim's record")
                    .startsWith("I 9");
            assertThat(before.apply(ClaimRequest.of(key, OwnerToken.random(), Duration.ofSeconds(5)))
                            .status())
                    .as("code from before, while the lease runs")
                    .isEqualTo(ClaimStatus.BUSY);

            awaitTrue("the lease to lapse", () -> plain.redis().sync.pttl(name) < grace.toMillis() - 50);
            assertThat(before.apply(ClaimRequest.of(key, OwnerToken.random(), Duration.ofSeconds(5)))
                            .status())
                    .as("code from before, the lease lapsed and the grace running: busy, not taken early")
                    .isEqualTo(ClaimStatus.BUSY);

            InboxKey other = InboxKey.of(consumer, "e-2");
            byte[] otherName = plain.keys().record(other);
            assertThat(plain.claim(ClaimRequest.of(other, OwnerToken.random(), Duration.ofMillis(100))))
                    .isEqualTo(ClaimResult.acquired());
            awaitTrue("the second lease to lapse", () -> plain.redis().sync.pttl(otherName) < grace.toMillis() - 50);
            assertThat(plain.claim(ClaimRequest.of(other, OwnerToken.random(), Duration.ofSeconds(5))))
                    .as("this code, the lease lapsed")
                    .isEqualTo(ClaimResult.takenOver());

            awaitTrue("the first record's TTL to end", () -> plain.redis().sync.exists(name) == 0);
            assertThat(before.apply(ClaimRequest.of(key, OwnerToken.random(), Duration.ofSeconds(5))))
                    .as("code from before, once the TTL ended")
                    .isEqualTo(ClaimResult.acquired());
        }
    }

    private static RedisInboxStore store(Duration grace, boolean plainNewKeyClaims) {
        return RedisInboxStore.builder(standalone)
                .prefix("inbox-upgrade")
                .grace(grace)
                .plainNewKeyClaims(plainNewKeyClaims)
                .build();
    }

    /** A claim as the code from before plain claims made it, on {@code store}'s keys and connection. */
    private static Function<ClaimRequest, ClaimResult> beforePlainClaims(RedisInboxStore store, Duration grace) {
        RedisScript before = RedisScript.load("claim-before-lease-in-ttl");
        return request -> {
            String fingerprint = request.fingerprint();
            List<Object> reply = before.run(
                    store.redis().sync,
                    ScriptOutputType.MULTI,
                    store.keys().record(request.key()),
                    RedisCodec.millis(grace, 0),
                    RedisCodec.ascii("0"),
                    RedisCodec.ascii(request.owner().value()),
                    RedisCodec.millis(request.lease(), 1),
                    fingerprint == null ? new byte[0] : RedisCodec.ascii(fingerprint));
            return RedisCodec.decodeClaim(reply, 0);
        };
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        Instant until = Instant.now().plusSeconds(10);
        while (!condition.getAsBoolean()) {
            assertThat(Instant.now()).as("waiting for " + what).isBefore(until);
            Thread.sleep(5);
        }
    }

    /**
     * A store whose claims take turns among {@code claims} (each a way to claim on one keyspace) and
     * whose other operations go to {@code store}; {@code also}, when not null, is closed with it.
     */
    private static InboxStore takingTurns(
            RedisInboxStore store, List<Function<ClaimRequest, ClaimResult>> claims, @Nullable RedisInboxStore also) {
        AtomicLong turn = new AtomicLong();
        return (InboxStore) Proxy.newProxyInstance(
                InboxStore.class.getClassLoader(), new Class<?>[] {InboxStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("claim")) {
                        return claims.get((int) (turn.getAndIncrement() % claims.size()))
                                .apply((ClaimRequest) args[0]);
                    }
                    if (method.getName().equals("close") && also != null) {
                        also.close();
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
