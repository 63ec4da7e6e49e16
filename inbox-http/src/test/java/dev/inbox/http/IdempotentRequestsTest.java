package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.InboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The core's decisions without a web server. */
class IdempotentRequestsTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Inbox inbox = Inbox.builder(store).consumer("api").build();

    @AfterEach
    void close() {
        store.close();
    }

    private static IdempotentRequest request(String tenant, String key) {
        Map<String, String> headers = Map.of("X-Tenant", tenant);
        return new IdempotentRequest(
                "POST",
                "/orders",
                null,
                "application/json",
                key,
                null,
                headers::get,
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aKeyCannotReachIntoAnotherScope_whateverCharactersItHolds() {
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.header("X-Tenant"))
                .build();
        IdempotentRequests.Decision first = requests.begin(request("a|b", "c"));
        assertThat(first).isInstanceOf(IdempotentRequests.Proceed.class);
        requests.finish((IdempotentRequests.Proceed) first, new StoredResponse(201, List.of(), new byte[0]));

        assertThat(requests.begin(request("a", "b|c")))
                .as("tenant a's key b|c is not tenant a|b's key c")
                .isInstanceOf(IdempotentRequests.Proceed.class);
        assertThat(requests.begin(request("a|b", "c"))).isInstanceOf(IdempotentRequests.Replay.class);
    }

    @Test
    void aScopeIsRequired_andBadSettingsAreRefusedWhenBuilt() {
        assertThatThrownBy(() -> IdempotentRequests.builder(inbox).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("choose a scope");
        assertThatThrownBy(() -> IdempotentRequests.builder(null)).isInstanceOf(IllegalArgumentException.class);
        IdempotentRequests.Builder builder = IdempotentRequests.builder(inbox);
        assertThatThrownBy(() -> builder.replayedHeaders(Set.of("Set-Cookie")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.retryAfter(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.methods()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.maxBodyBytes(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdempotencyScope.header(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStoreThatKeepsNoResults_isRefused() {
        InboxStore noResults = new InboxStoreWithoutResults(store);
        assertThatThrownBy(() -> IdempotentRequests.builder(
                        Inbox.builder(noResults).consumer("api").build()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("keeps no results");
    }

    @Test
    void clientErrors_areReleased_whenNotKept() {
        IdempotentRequests requests = IdempotentRequests.builder(inbox)
                .scope(IdempotencyScope.global())
                .keepClientErrors(false)
                .build();
        IdempotentRequests.Proceed first = (IdempotentRequests.Proceed) requests.begin(request("t", "k"));
        assertThat(requests.finish(first, new StoredResponse(409, List.of(), new byte[0])))
                .isEqualTo(IdempotentRequests.Finished.RELEASED);
        assertThat(requests.begin(request("t", "k"))).isInstanceOf(IdempotentRequests.Proceed.class);
    }

    /** A store of someone else's that keeps no results (the interface's default). */
    private record InboxStoreWithoutResults(InboxStore delegate) implements InboxStore {
        @Override
        public dev.inbox.spi.ClaimResult claim(dev.inbox.spi.ClaimRequest request) {
            return delegate.claim(request);
        }

        @Override
        public boolean complete(dev.inbox.InboxKey key, dev.inbox.spi.OwnerToken owner, Duration retention) {
            return delegate.complete(key, owner, retention);
        }

        @Override
        public boolean release(dev.inbox.InboxKey key, dev.inbox.spi.OwnerToken owner) {
            return delegate.release(key, owner);
        }

        @Override
        public long purge() {
            return delegate.purge();
        }

        @Override
        public void close() {}
    }
}
