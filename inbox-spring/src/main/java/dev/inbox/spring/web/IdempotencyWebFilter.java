package dev.inbox.spring.web;

import dev.inbox.http.IdempotentRequest;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.http.StoredResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code Idempotency-Key} guard of a Spring WebFlux application: the reactive counterpart of
 * {@link dev.inbox.http.IdempotencyFilter}, with the same decisions ({@link IdempotentRequests}') —
 * a repeat of a key's request gets the first response back, marked {@code Idempotent-Replayed:
 * true}, instead of running the handler again (lease mode: see {@link IdempotentRequests} for the
 * one window where it does).
 *
 * <pre>{@code
 * @Bean
 * WebFilter idempotency(Inbox inbox, ApplicationContext context) {
 *     IdempotentRequests requests = IdempotentRequests.builder(inbox)
 *             .scope(IdempotencyScope.principal())
 *             .build();
 *     return new IdempotencyWebFilter(requests, new ReactiveIdempotentRoutes(context));
 * }
 * }</pre>
 *
 * <p>Which requests it guards: those of the guarded methods (POST and PATCH by default) that {@code
 * routes} accepts — every one ({@link #IdempotencyWebFilter(IdempotentRequests)}), those under
 * path patterns ({@link IdempotentPathPatterns}), or those whose handler method is marked {@link
 * IdempotentRoute} ({@link ReactiveIdempotentRoutes}). Order it after
 * authentication (Spring Security's {@code WebFilterChainProxy}), so that a request refused there
 * never reaches a claim and a {@linkplain dev.inbox.http.IdempotencyScope#principal() principal
 * scope} sees the principal.
 *
 * <p>The store is called on {@link Schedulers#boundedElastic()}, never on an event-loop thread. The
 * request body is read whole, up to {@link IdempotentRequests#maxBodyBytes()} (over it: 413), and
 * served again to the handler; multipart bodies are refused (415). The response is held until the
 * handler is done — nothing reaches the client earlier — and then kept (or the claim released, for
 * a 5xx). A request whose key is in flight waits, if {@link
 * IdempotentRequests.Builder#waitWhileInFlight} allows, without holding a thread (a timer between
 * claims). A handler that fails without writing a response, or whose response is cancelled (the
 * client went away), releases the claim: the next try runs it again. A streaming response ({@code
 * writeAndFlushWith}: server-sent events) cannot be held back: it fails, and the claim is released.
 */
public final class IdempotencyWebFilter implements WebFilter {

    private final IdempotentRequests requests;
    private final Function<? super ServerWebExchange, Mono<Boolean>> routes;

    /**
     * A filter making the decisions of {@code requests} for every request of a guarded method.
     *
     * @throws IllegalArgumentException if {@code requests} is null
     */
    public IdempotencyWebFilter(IdempotentRequests requests) {
        this(requests, exchange -> Mono.just(true));
    }

    /**
     * A filter making the decisions of {@code requests} for the requests of a guarded method that
     * {@code routes} accepts ({@link IdempotentPathPatterns}, {@link ReactiveIdempotentRoutes}); the others pass
     * through unguarded. {@code routes} is asked before the body is read.
     *
     * @throws IllegalArgumentException if {@code requests} or {@code routes} is null, or {@code
     *     requests} is in transactional mode
     */
    public IdempotencyWebFilter(
            IdempotentRequests requests, Function<? super ServerWebExchange, Mono<Boolean>> routes) {
        if (requests == null) {
            throw new IllegalArgumentException("requests must not be null");
        }
        if (routes == null) {
            throw new IllegalArgumentException("routes must not be null");
        }
        if (requests.transactional()) {
            throw new IllegalArgumentException("transactional mode needs the handler on the request's thread, in the"
                    + " transaction opened there, which WebFlux does not give: use lease mode here, or the Servlet"
                    + " filter (IdempotencyFilter) with Spring MVC");
        }
        this.requests = requests;
        this.routes = routes;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (!requests.guards(exchange.getRequest().getMethod().name())) {
            return chain.filter(exchange);
        }
        return routes.apply(exchange)
                .defaultIfEmpty(false)
                .flatMap(guarded -> guarded ? guard(exchange, chain) : chain.filter(exchange));
    }

    private Mono<Void> guard(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        List<String> keys = request.getHeaders().getOrEmpty(IdempotentRequests.HEADER);
        if (keys.size() > 1) {
            return refuse(
                    exchange.getResponse(),
                    new IdempotentRequests.Refuse(400, "Send one " + IdempotentRequests.HEADER + " header.", null));
        }
        @Nullable String key = keys.isEmpty() ? null : keys.get(0);
        if (key == null) {
            return decide(exchange, chain, null, new byte[0]);
        }
        MediaType type = request.getHeaders().getContentType();
        if (type != null && type.getType().toLowerCase(Locale.ROOT).equals("multipart")) {
            return refuse(
                    exchange.getResponse(),
                    new IdempotentRequests.Refuse(
                            415, "Multipart bodies cannot be sent with an " + IdempotentRequests.HEADER + ".", null));
        }
        if (request.getHeaders().getContentLength() > requests.maxBodyBytes()) {
            return refuse(exchange.getResponse(), requests.bodyTooLarge());
        }
        return DataBufferUtils.join(request.getBody(), requests.maxBodyBytes())
                .map(IdempotencyWebFilter::bytes)
                .defaultIfEmpty(new byte[0])
                .flatMap(body -> decide(exchange, chain, key, body))
                .onErrorResume(
                        DataBufferLimitException.class,
                        over -> refuse(exchange.getResponse(), requests.bodyTooLarge()));
    }

    private Mono<Void> decide(ServerWebExchange exchange, WebFilterChain chain, @Nullable String key, byte[] body) {
        ServerWebExchange handled = key == null
                ? exchange
                : exchange.mutate()
                        .request(new CachedBody(exchange.getRequest(), body))
                        .build();
        return exchange.getPrincipal()
                .map(Principal::getName)
                .map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .flatMap(principal -> Mono.defer(() -> begin(
                        describe(exchange.getRequest(), key, principal.orElse(null), body), System.nanoTime(), 0)))
                .flatMap(decision -> {
                    if (decision instanceof IdempotentRequests.Proceed proceed) {
                        return run(proceed, handled, chain);
                    }
                    if (decision instanceof IdempotentRequests.Replay replay) {
                        return replay(exchange.getResponse(), replay.response());
                    }
                    if (decision instanceof IdempotentRequests.Refuse refusal) {
                        return refuse(exchange.getResponse(), refusal);
                    }
                    return chain.filter(handled);
                });
    }

    /** {@link IdempotentRequests#begin}, again after each pause while the key is in flight: no thread waits. */
    private Mono<IdempotentRequests.Decision> begin(IdempotentRequest request, long startNanos, int attempt) {
        return Mono.fromCallable(() -> requests.begin(request))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(decision -> {
                    Duration pause = requests.pauseBeforeAgain(decision, startNanos, attempt);
                    return pause == null
                            ? Mono.just(decision)
                            : Mono.delay(pause).then(Mono.defer(() -> begin(request, startNanos, attempt + 1)));
                });
    }

    private Mono<Void> run(IdempotentRequests.Proceed proceed, ServerWebExchange exchange, WebFilterChain chain) {
        HeldResponse held = new HeldResponse(exchange.getResponse(), proceed);
        return chain.filter(exchange.mutate().response(held).build())
                .then(Mono.defer(() -> held.settle(new byte[0])))
                .onErrorResume(failure -> held.abandon(failure).then(Mono.error(failure)))
                .doOnCancel(held::cancelled);
    }

    private static IdempotentRequest describe(
            ServerHttpRequest request, @Nullable String key, @Nullable String principal, byte[] body) {
        HttpHeaders headers = request.getHeaders();
        return new IdempotentRequest(
                request.getMethod().name(),
                request.getPath().value(),
                request.getURI().getRawQuery(),
                headers.getFirst(HttpHeaders.CONTENT_TYPE),
                key,
                principal,
                headers::getFirst,
                body);
    }

    private static Mono<Void> replay(ServerHttpResponse response, StoredResponse stored) {
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        HttpHeaders headers = response.getHeaders();
        for (StoredResponse.Header header : stored.headers()) {
            headers.add(header.name(), header.value());
        }
        headers.set(IdempotentRequests.REPLAYED, "true");
        return write(response, stored.body());
    }

    private static Mono<Void> refuse(ServerHttpResponse response, IdempotentRequests.Refuse refusal) {
        response.setStatusCode(HttpStatusCode.valueOf(refusal.status()));
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (refusal.retryAfter() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(refusal.retryAfterSeconds()));
        }
        return write(response, refusal.problemJson());
    }

    private static Mono<Void> write(ServerHttpResponse response, byte[] body) {
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(
                Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }

    private static byte[] bytes(DataBuffer buffer) {
        try {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    @Override
    public String toString() {
        return "IdempotencyWebFilter[" + requests + "]";
    }

    /** The request with its body, already read for the fingerprint, served again. */
    private static final class CachedBody extends ServerHttpRequestDecorator {
        private final byte[] body;

        CachedBody(ServerHttpRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public Flux<DataBuffer> getBody() {
            return Flux.defer(() ->
                    body.length == 0 ? Flux.empty() : Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
        }
    }

    /**
     * The response held back until the handler is done: what it writes is kept (or the claim
     * released) first, and only then sent. Settled once, by the first of: the body written, the
     * response completed without one, the handler done without either, a failure, a cancellation.
     */
    private final class HeldResponse extends ServerHttpResponseDecorator {
        private final IdempotentRequests.Proceed proceed;
        private final AtomicBoolean settled = new AtomicBoolean();

        HeldResponse(ServerHttpResponse response, IdempotentRequests.Proceed proceed) {
            super(response);
            this.proceed = proceed;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            return DataBufferUtils.join(Flux.from(body))
                    .map(IdempotencyWebFilter::bytes)
                    .defaultIfEmpty(new byte[0])
                    .flatMap(bytes -> settle(bytes).then(Mono.defer(() -> write(getDelegate(), bytes))));
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
            IllegalStateException streaming = new IllegalStateException("an " + IdempotentRequests.HEADER
                    + " route answered with a streaming response (writeAndFlushWith, such as server-sent events),"
                    + " which cannot be held back and kept: guard only routes that answer whole responses");
            return abandon(streaming).then(Mono.error(streaming));
        }

        @Override
        public Mono<Void> setComplete() {
            return settle(new byte[0]).then(Mono.defer(() -> getDelegate().setComplete()));
        }

        /** Keeps what the handler answered (or releases the claim), unless settled already. */
        Mono<Void> settle(byte[] body) {
            if (!settled.compareAndSet(false, true)) {
                return Mono.empty();
            }
            HttpStatusCode status = getStatusCode();
            List<StoredResponse.Header> headers = new ArrayList<>();
            getHeaders()
                    .forEach((name, values) ->
                            values.forEach(value -> headers.add(new StoredResponse.Header(name, value))));
            StoredResponse response = new StoredResponse(status == null ? 200 : status.value(), headers, body);
            return Mono.fromRunnable(() -> requests.finish(proceed, response))
                    .subscribeOn(Schedulers.boundedElastic())
                    .then();
        }

        /** Releases the claim of a handler that failed before its response was settled. */
        Mono<Void> abandon(Throwable failure) {
            if (!settled.compareAndSet(false, true)) {
                return Mono.empty();
            }
            return Mono.fromRunnable(() -> requests.abandon(proceed, failure))
                    .subscribeOn(Schedulers.boundedElastic())
                    .then();
        }

        /** The exchange was cancelled (the client went away) before the response was settled. */
        void cancelled() {
            if (settled.compareAndSet(false, true)) {
                Schedulers.boundedElastic().schedule(() -> requests.release(proceed));
            }
        }
    }
}
