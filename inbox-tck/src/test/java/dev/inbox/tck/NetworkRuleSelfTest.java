package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxStoreException;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.platform.testkit.engine.Events;

/**
 * The failure and fault rules (E2–E5) against a store that really talks over TCP ({@link
 * NetStore}, through the kit's {@link FaultProxy} for E3–E5): the correct client passes them, and
 * each broken client fails its rule.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetworkRuleSelfTest {

    static final NetStore.Server SERVER;

    static {
        try {
            SERVER = new NetStore.Server();
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @AfterAll
    void stopServer() throws IOException {
        SERVER.close();
    }

    static class FailureKit extends StoreFailureContract {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout);
        }

        @Override
        protected Duration bound() {
            return Duration.ofSeconds(5);
        }
    }

    static class FaultKit extends StoreFaultContract {
        @Override
        protected InetSocketAddress server() {
            return SERVER.address();
        }

        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout);
        }

        @Override
        protected Duration timeout() {
            return Duration.ofMillis(500);
        }

        @Override
        protected Duration bound() {
            return Duration.ofSeconds(5);
        }
    }

    /** Answers ACQUIRED when the server cannot be asked. */
    static class MadeUpAnswerKit extends FailureKit {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout) {
                @Override
                String failed(String operation, IOException e) {
                    disconnect();
                    return operation.equals("CLAIM") ? "ACQUIRED" : "true";
                }
            };
        }
    }

    /** Keeps its broken connection for ever: nothing works again once the server was lost. */
    static class NeverReconnectsKit extends FaultKit {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout) {
                private boolean broken;

                @Override
                String failed(String operation, IOException e) {
                    broken = true;
                    throw new InboxStoreException(operation + " failed: " + e, e, true);
                }

                @Override
                Socket connection() throws IOException {
                    if (broken) {
                        throw new IOException("the connection is broken");
                    }
                    return super.connection();
                }
            };
        }
    }

    /** Retries a failed claim by itself under a new owner: its own claim, applied, now looks BUSY. */
    static class RetriesUnderANewOwnerKit extends FaultKit {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout) {
                @Override
                public ClaimResult claim(ClaimRequest request) {
                    try {
                        return super.claim(request);
                    } catch (InboxStoreException e) {
                        return super.claim(ClaimRequest.of(request.key(), OwnerToken.random(), request.lease()));
                    }
                }
            };
        }
    }

    /** Waits for a reply for ever. */
    static class NoReadTimeoutKit extends FaultKit {
        @Override
        protected InboxStore createStore(String host, int port, Duration timeout) {
            return new NetStore(host, port, timeout) {
                @Override
                int readTimeoutMillis() {
                    return 0;
                }
            };
        }
    }

    @Test
    void correctNetworkedStore_passesE2ToE5() {
        for (Class<?> kit : new Class<?>[] {FailureKit.class, FaultKit.class}) {
            Events events = KitRun.all(kit);
            assertThat(events.failed().list())
                    .as("failures of %s", kit.getSimpleName())
                    .isEmpty();
            assertThat(events.succeeded().count())
                    .as("tests of %s", kit.getSimpleName())
                    .isPositive();
        }
    }

    @Test
    @DisplayName("E2 catches a store that makes up an answer when its server cannot be asked")
    void e2() {
        assertThat(KitRun.failedRules(MadeUpAnswerKit.class, "E2")).contains("E2");
    }

    @Test
    @DisplayName("E3 catches a store that never reconnects after losing its server")
    void e3() {
        assertThat(KitRun.failedRules(NeverReconnectsKit.class, "E3")).contains("E3");
    }

    @Test
    @DisplayName("E4 catches a store that retries a lost claim under a new owner")
    void e4() {
        assertThat(KitRun.failedRules(RetriesUnderANewOwnerKit.class, "E4")).contains("E4");
    }

    @Test
    @DisplayName("E5 catches a store that waits for a reply for ever")
    void e5() {
        assertThat(KitRun.failedRules(NoReadTimeoutKit.class, "E5")).contains("E5");
    }
}
