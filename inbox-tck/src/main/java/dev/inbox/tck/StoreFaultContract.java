package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.SequenceGuard;
import dev.inbox.SequenceStatus;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Rules E3–E5: a real server behind a {@link FaultProxy} that the kit controls. The server goes
 * away at start and mid-run, a reply is lost after the server applied the claim, and the server
 * stalls longer than the client's timeout. In every case the store must surface {@link
 * InboxStoreException} (never a made-up answer), work again once the server is back without being
 * rebuilt, and lose nothing that was acknowledged.
 *
 * <pre>{@code
 * class MyStoreFaultTest extends StoreFaultContract {
 *     protected InetSocketAddress server() { return new InetSocketAddress("127.0.0.1", 5432); }
 *     protected InboxStore createStore(String host, int port, Duration timeout) {
 *         return MyStore.connect(host, port, timeout);
 *     }
 * }
 * }</pre>
 *
 * <p>Its tests mostly wait for timeouts and reconnections, so they run concurrently — with each
 * other and with the suite's other classes — when JUnit's parallel execution is enabled
 * ({@code junit.jupiter.execution.parallel.enabled}; otherwise one after another). Each test has a
 * proxy, a store and a consumer of its own; {@link #createStore} may be called from several threads.
 */
@Execution(ExecutionMode.CONCURRENT)
public abstract class StoreFaultContract {

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final String consumer = TckSupport.freshConsumer();

    /** The proxy between the store and its server, fresh for each test. */
    protected FaultProxy proxy;

    /** The real server the proxy forwards to. */
    protected abstract InetSocketAddress server() throws Exception;

    /**
     * Returns a store whose server is at {@code host:port} (the proxy), with connect and request
     * timeouts of about {@code timeout}, that reconnects by itself after a connection is lost.
     * Creating it must not need the server (rule E3 builds one while the server is unreachable).
     */
    protected abstract InboxStore createStore(String host, int port, Duration timeout) throws Exception;

    /**
     * The sequence guard of a store built by {@link #createStore}, for stores that offer one: rule
     * E3 checks that its {@code advance} meets the outage like every store operation. The default,
     * null, is for stores without a guard.
     */
    protected @Nullable SequenceGuard guardOf(InboxStore store) throws Exception {
        return null;
    }

    /**
     * False for a store whose {@link InboxStore#purge()} sends nothing to the server because
     * records expire natively (Redis, DynamoDB TTL): its purge then answers 0 during an outage
     * rather than fail.
     */
    protected boolean purgeTalksToServer() {
        return true;
    }

    /** The client timeout the kit asks for. */
    protected Duration timeout() {
        return Duration.ofSeconds(1);
    }

    /** How long one failing operation, or the recovery after a fault, may take. */
    protected Duration bound() {
        return Duration.ofSeconds(30);
    }

    /**
     * Registers something a store built by {@link #createStore} needs closed after the test, such
     * as its pool or client; resources close after the stores, in reverse order.
     */
    protected final <T extends AutoCloseable> T closeAfterTest(T resource) {
        resources.add(resource);
        return resource;
    }

    @BeforeEach
    void startProxy() throws Exception {
        InetSocketAddress server = server();
        proxy = FaultProxy.start(server.getHostString(), server.getPort());
    }

    @AfterEach
    void closeResources() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    @Tag("extended") // each operation waits out a connect timeout: ~10 s a store; CI and -Pextended run it
    @DisplayName("E3 a server unreachable at start fails with InboxStoreException; the store works once it is up")
    void e3_unreachableAtStart() throws Exception {
        proxy.refuse();
        OwnerToken owner = OwnerToken.random();
        ClaimRequest claim = claim("at-start", owner);
        InboxStore store = assertTimeoutPreemptively(bound(), this::openStore, "building a store without its server");
        SequenceGuard guard = guardOf(store);
        assertEveryOperationFails(store, guard, claim);
        proxy.accept();
        assertThat(eventually(() -> store.claim(claim)))
                .as("the claim once the server is reachable")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(claim.key(), owner, Duration.ofMinutes(10))).isTrue();
        if (guard != null) {
            assertThat(eventually(() -> guard.advance(InboxKey.of(consumer, "entity-at-start"), 1))
                            .status())
                    .isEqualTo(SequenceStatus.APPLIED);
        }
    }

    /** Every operation of {@code store} (and its guard) while the server cannot be reached. */
    private void assertEveryOperationFails(InboxStore store, @Nullable SequenceGuard guard, ClaimRequest claim) {
        OwnerToken owner = claim.owner();
        assertFails("claim", () -> store.claim(claim));
        assertFails(
                "claimAll",
                () -> store.claimAll(List.of(claim, claim("other-" + claim.key().id(), owner))));
        assertFails("complete", () -> store.complete(claim.key(), owner, Duration.ofMinutes(10)));
        assertFails("release", () -> store.release(claim.key(), owner));
        if (purgeTalksToServer()) {
            assertFails("purge", store::purge);
        } else {
            assertThat(store.purge())
                    .as("purge of a store that expires natively")
                    .isZero();
        }
        if (guard != null) {
            assertFails(
                    "advance",
                    () -> guard.advance(
                            InboxKey.of(consumer, "entity-" + claim.key().id()), 1));
        }
    }

    @Test
    @DisplayName("E3 a server lost mid-run fails with InboxStoreException; once back, nothing acknowledged is lost")
    void e3_unreachableMidRun() throws Exception {
        InboxStore store = openStore();
        OwnerToken done = OwnerToken.random();
        OwnerToken holder = OwnerToken.random();
        ClaimRequest completed = claim("completed", done);
        ClaimRequest held = claim("held", holder);
        ClaimRequest during = claim("during", OwnerToken.random());
        assertThat(store.claim(completed)).isEqualTo(ClaimResult.acquired());
        assertThat(store.complete(completed.key(), done, Duration.ofMinutes(10)))
                .isTrue();
        assertThat(store.claim(held)).isEqualTo(ClaimResult.acquired());

        OwnerToken released = OwnerToken.random();
        ClaimRequest toRelease = claim("released", released);
        assertThat(store.claim(toRelease)).isEqualTo(ClaimResult.acquired());
        SequenceGuard guard = guardOf(store);
        InboxKey entity = InboxKey.of(consumer, "entity-mid-run");
        if (guard != null) {
            assertThat(guard.advance(entity, 1).status()).isEqualTo(SequenceStatus.APPLIED);
        }

        proxy.refuse();
        assertFails("claim", () -> store.claim(during));
        assertFails("claimAll", () -> store.claimAll(List.of(during, claim("during-batch", OwnerToken.random()))));
        assertFails("complete", () -> store.complete(held.key(), holder, Duration.ofMinutes(10)));
        assertFails("release", () -> store.release(toRelease.key(), released));
        if (purgeTalksToServer()) {
            assertFails("purge", store::purge);
        }
        if (guard != null) {
            assertFails("advance", () -> guard.advance(entity, 2));
        }
        proxy.accept();

        assertThat(eventually(() -> store.release(toRelease.key(), released)))
                .as("the release once the server is back")
                .isTrue();
        if (guard != null) {
            assertThat(eventually(() -> guard.advance(entity, 2)).status())
                    .as("the guard once the server is back")
                    .isEqualTo(SequenceStatus.APPLIED);
        }
        assertThat(eventually(store::purge)).as("purge once the server is back").isNotNegative();

        assertThat(eventually(() -> store.complete(held.key(), holder, Duration.ofMinutes(10))))
                .as("the holder completes once the server is back")
                .isTrue();
        for (ClaimRequest acknowledged : List.of(completed, held)) {
            assertThat(store.claim(claim(acknowledged.key().id(), OwnerToken.random()))
                            .status())
                    .as("a completion acknowledged before or after the outage: %s", acknowledged.key())
                    .isEqualTo(ClaimStatus.DUPLICATE);
        }
        assertThat(store.claim(during)).as("the claim that failed").isEqualTo(ClaimResult.acquired());
    }

    @Test
    @DisplayName("E4 a reply lost after the server applied a claim: the same owner's retry is ACQUIRED, others BUSY")
    void e4_replyLostAfterTheClaimWasApplied() throws Exception {
        InboxStore store = openStore();
        assertThat(store.claim(claim("warm-up", OwnerToken.random()))).isEqualTo(ClaimResult.acquired());
        OwnerToken owner = OwnerToken.random();
        ClaimRequest request = claim("ambiguous", owner);

        proxy.loseNextReply();
        ClaimResult[] first = new ClaimResult[1];
        Throwable thrown =
                assertTimeoutPreemptively(bound(), () -> catchThrowable(() -> first[0] = store.claim(request)));
        assertThat(proxy.repliesLost())
                .as("the proxy dropped the claim's reply")
                .isEqualTo(1);
        if (thrown != null) {
            assertThat(thrown)
                    .as("the failure of a claim whose reply was lost")
                    .isInstanceOf(InboxStoreException.class);
        } else {
            assertThat(first[0])
                    .as("a claim the driver retried by itself after losing the reply")
                    .isEqualTo(ClaimResult.acquired());
        }
        assertThat(eventually(() -> store.claim(request)))
                .as("the same owner's retry (rule C5)")
                .isEqualTo(ClaimResult.acquired());
        assertThat(store.claim(claim("ambiguous", OwnerToken.random())))
                .as("another owner: the first claim holds the key")
                .isEqualTo(ClaimResult.busy());
        assertThat(store.complete(request.key(), owner, Duration.ofMinutes(10))).isTrue();
    }

    @Test
    @DisplayName(
            "E5 a server stalled past the client timeout: the timeout surfaces; after it resumes one owner holds the key")
    void e5_stalledServer() throws Exception {
        InboxStore store = openStore();
        assertThat(store.claim(claim("warm-up", OwnerToken.random()))).isEqualTo(ClaimResult.acquired());
        OwnerToken first = OwnerToken.random();
        OwnerToken second = OwnerToken.random();

        proxy.stall();
        try {
            assertFails("claim", () -> store.claim(claim("stalled", first)));
        } finally {
            proxy.resume(); // the held claim now reaches the server, late
        }
        ClaimResult secondResult = eventually(() -> store.claim(claim("stalled", second)));
        ClaimResult firstResult = eventually(() -> store.claim(claim("stalled", first)));
        assertThat(List.of(firstResult, secondResult))
                .as("the timed-out owner's retry and another owner's claim, after the stall")
                .containsExactlyInAnyOrder(ClaimResult.acquired(), ClaimResult.busy());
    }

    private InboxStore openStore() throws Exception {
        InboxStore store = createStore(proxy.host(), proxy.port(), timeout());
        resources.add(store::close);
        return store;
    }

    private ClaimRequest claim(String id, OwnerToken owner) {
        return ClaimRequest.of(InboxKey.of(consumer, id), owner, Duration.ofMinutes(10));
    }

    private void assertFails(String operation, Supplier<?> call) {
        StoreFailures.assertStoreFailure(bound(), operation, call::get);
    }

    /** Runs {@code call} until it stops failing with {@link InboxStoreException}, within the bound. */
    private <T> T eventually(ThrowingSupplier<T> call) throws Exception {
        long deadline = System.nanoTime() + bound().toNanos();
        while (true) {
            try {
                return call.get();
            } catch (InboxStoreException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the store did not recover within " + bound(), e);
                }
                TckSupport.pause(Duration.ofMillis(100));
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
