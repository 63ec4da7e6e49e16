package dev.inbox.spring.web;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.http.MediaType;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The requests whose Spring WebFlux handler method (or its controller) is marked {@link
 * IdempotentRoute}: the routes of an {@link IdempotencyWebFilter} — the reactive counterpart of
 * {@link IdempotentRoutes}.
 *
 * <pre>{@code
 * new IdempotencyWebFilter(requests, new ReactiveIdempotentRoutes(applicationContext))
 * }</pre>
 *
 * <p>It asks the application's (reactive) {@link RequestMappingHandlerMapping}s, in their order,
 * which handler a request reaches — the lookup the {@code DispatcherHandler} makes again after it —
 * on a view of the exchange whose attributes stay its own, so the lookup leaves nothing behind. The
 * mappings are found on first use. A request no mapping handles, or one a mapping refuses, is not
 * guarded (it is answered by the dispatcher as without the filter). Functional routes ({@code
 * RouterFunction}) have no handler method to mark: guard them with {@link IdempotentPathPatterns}.
 */
public final class ReactiveIdempotentRoutes implements Function<ServerWebExchange, Mono<Boolean>> {

    private static final Object REFUSED = new Object();
    private static final List<MediaType> STREAMS = List.of(MediaType.TEXT_EVENT_STREAM, MediaType.APPLICATION_NDJSON);

    private final ListableBeanFactory beans;
    private volatile @Nullable List<RequestMappingHandlerMapping> mappings;

    /**
     * The routes of the handler mappings in {@code beans} (the application context).
     *
     * @throws IllegalArgumentException if {@code beans} is null
     */
    public ReactiveIdempotentRoutes(ListableBeanFactory beans) {
        if (beans == null) {
            throw new IllegalArgumentException("beans must not be null");
        }
        this.beans = beans;
    }

    @Override
    public Mono<Boolean> apply(ServerWebExchange exchange) {
        ServerWebExchange probe = new OwnAttributes(exchange);
        return Flux.fromIterable(mappings())
                .concatMap(mapping -> mapping.getHandler(probe).onErrorResume(refused -> Mono.just(REFUSED)))
                .next()
                .map(handler -> handler instanceof HandlerMethod method && Marked.on(method))
                .defaultIfEmpty(false);
    }

    /**
     * Refuses marked handlers whose response the filter cannot hold back and keep: a stream — one
     * mapped to produce {@code text/event-stream} or {@code application/x-ndjson}, or returning
     * {@code ServerSentEvent}s — which would otherwise fail on each request. Call it once the
     * application context is refreshed; the Boot starter does, at startup.
     *
     * @throws IllegalStateException naming each such handler method
     */
    public void checkHandlers() {
        List<String> offenders = new ArrayList<>();
        for (RequestMappingHandlerMapping mapping : mappings()) {
            mapping.getHandlerMethods().forEach((info, method) -> {
                if (!Marked.on(method)) {
                    return;
                }
                String streamed = StreamedResponses.streamedBy(method, StreamedResponses.WEBFLUX);
                for (MediaType type : info.getProducesCondition().getProducibleMediaTypes()) {
                    if (streamed == null && STREAMS.stream().anyMatch(type::isCompatibleWith)) {
                        streamed = type.toString();
                    }
                }
                if (streamed != null) {
                    offenders.add(StreamedResponses.name(method) + " streams " + streamed);
                }
            });
        }
        StreamedResponses.refuse(offenders);
    }

    private List<RequestMappingHandlerMapping> mappings() {
        List<RequestMappingHandlerMapping> found = mappings;
        if (found == null) {
            found = Marked.inOrder(beans, RequestMappingHandlerMapping.class);
            mappings = found;
        }
        return found;
    }

    /** The exchange, with a copy of its attributes: what the lookup sets stays here. */
    private static final class OwnAttributes extends ServerWebExchangeDecorator {
        private final Map<String, Object> attributes;

        OwnAttributes(ServerWebExchange exchange) {
            super(exchange);
            this.attributes = new HashMap<>(exchange.getAttributes());
        }

        @Override
        public Map<String, Object> getAttributes() {
            return attributes;
        }
    }
}
