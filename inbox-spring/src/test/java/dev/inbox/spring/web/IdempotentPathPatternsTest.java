package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

class IdempotentPathPatternsTest {

    @Test
    void aPathUnderAPattern_isGuarded_othersAreNot() {
        IdempotentPathPatterns routes = new IdempotentPathPatterns(List.of("/payments/**", "/orders/{id}/refunds"));
        assertThat(routes.apply(post("/payments/7")).block()).isTrue();
        assertThat(routes.apply(post("/orders/42/refunds")).block()).isTrue();
        assertThat(routes.apply(post("/orders/42")).block()).isFalse();
        assertThat(routes.apply(post("/paymentsX")).block()).isFalse();
    }

    @Test
    void noPatterns_aBlankOne_orOneThatIsNotAPattern_isRefused() {
        assertThatThrownBy(() -> new IdempotentPathPatterns(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> new IdempotentPathPatterns(Arrays.asList("/a", null)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IdempotentPathPatterns(List.of(" "))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IdempotentPathPatterns(List.of("/a/**/b/**")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/a/**/b/**' is not a path pattern");
    }

    @Test
    void theFilter_refusesMissingParts() {
        try (CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            IdempotentRequests requests = IdempotentRequests.builder(
                            Inbox.builder(store).consumer("filter").build())
                    .scope(IdempotencyScope.global())
                    .build();
            assertThatThrownBy(() -> new IdempotencyWebFilter(null)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new IdempotencyWebFilter(requests, null))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new ReactiveIdempotentRoutes(null)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static MockServerWebExchange post(String path) {
        return MockServerWebExchange.from(MockServerHttpRequest.post(path));
    }
}
