package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.spi.StuckQuery;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Rule E2 for stores that talk to a server: when the server is unreachable, or accepts connections
 * and never answers, every operation fails with {@link InboxStoreException} within a bounded time,
 * never with a made-up answer. The kit provides the endpoints (a closed loopback port, and a
 * loopback listener that never replies); the store's test builds a store pointed at them.
 */
public abstract class StoreFailureContract {

    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    /**
     * Returns a store whose server is at {@code host:port}, with connect and request timeouts of
     * about {@code timeout}. Creating it must not need the server (connect on first use, as a pool
     * does): rule E2 builds stores with no server at all and expects every operation to fail with
     * {@link InboxStoreException}.
     */
    protected abstract InboxStore createStore(String host, int port, Duration timeout) throws Exception;

    /** The client timeout the kit asks for. */
    protected Duration timeout() {
        return Duration.ofMillis(500);
    }

    /**
     * False for a store whose {@link InboxStore#purge()} sends nothing to the server because
     * records expire natively (Redis, DynamoDB TTL): its purge then must answer 0 — it removed
     * nothing — rather than fail.
     */
    protected boolean purgeTalksToServer() {
        return true;
    }

    /** How long one failing operation may take, including retries inside the driver. */
    protected Duration bound() {
        return Duration.ofSeconds(20);
    }

    @AfterEach
    void closeResources() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    @Test
    @DisplayName("E2 an unreachable server fails every operation with InboxStoreException")
    void e2_unreachableServer() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        assertEveryOperationFails(port);
    }

    @Test
    @DisplayName("E2 a server that never answers fails every operation with InboxStoreException")
    void e2_silentServer() throws Exception {
        ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        Thread acceptor = new Thread(
                () -> {
                    try {
                        while (!silent.isClosed()) {
                            accepted.add(silent.accept()); // hold it open, never write a byte
                        }
                    } catch (IOException closed) {
                        // the test is over
                    }
                },
                "tck-silent-server");
        acceptor.setDaemon(true);
        acceptor.start();
        resources.add(() -> {
            silent.close();
            for (Socket socket : accepted) {
                socket.close();
            }
        });
        assertEveryOperationFails(silent.getLocalPort());
    }

    private void assertEveryOperationFails(int port) {
        String consumer = TckSupport.freshConsumer();
        InboxKey key = InboxKey.of(consumer, "e2");
        OwnerToken owner = OwnerToken.random();
        ClaimRequest claim = ClaimRequest.of(key, owner, Duration.ofMinutes(1));
        // Built without a server, as a service starting before its store is up: every operation
        // must then meet the missing server, none may end at build time.
        InboxStore store = assertTimeoutPreemptively(
                bound(), () -> createStore("127.0.0.1", port, timeout()), "building a store without its server");
        resources.add(store::close);
        assertFails(store, "claim", s -> s.claim(claim));
        assertFails(store, "claimAll", s -> s.claimAll(List.of(claim)));
        assertFails(store, "complete", s -> s.complete(key, owner, Duration.ofMinutes(1)));
        assertFails(store, "release", s -> s.release(key, owner));
        assertFails(store, "admin inspect", s -> s.admin().inspect(key));
        assertFails(store, "admin stuck", s -> s.admin().stuck(StuckQuery.of(consumer)));
        assertFails(store, "admin count", s -> s.admin().count(consumer));
        assertFails(store, "admin releaseLease", s -> s.admin().releaseLease(key));
        assertFails(store, "admin forget", s -> s.admin().forget(key));
        if (purgeTalksToServer()) {
            assertFails(store, "purge", InboxStore::purge);
        } else {
            assertThat(store.purge())
                    .as("purge of a store that expires natively removes nothing itself")
                    .isZero();
        }
    }

    private void assertFails(InboxStore store, String operation, Consumer<InboxStore> call) {
        StoreFailures.assertStoreFailure(bound(), operation, () -> call.accept(store));
    }
}
