package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The HTTP kit through Spring WebFlux on Reactor Netty: an annotated controller, the {@link
 * IdempotencyWebFilter} in the application's filter chain, and only the {@link IdempotentRoute}
 * handlers guarded ({@link ReactiveIdempotentRoutes}).
 */
class WebFluxHttpKitTest extends HttpContract {

    /** The kit's handler as an annotated controller method; its work off the event loop, as blocking work must be. */
    @RestController
    static class KitController {
        private final HttpKit kit;

        KitController(HttpKit kit) {
            this.kit = kit;
        }

        @IdempotentRoute
        @PostMapping(HttpKit.PATH_PREFIX + "**")
        Mono<ResponseEntity<byte[]>> kit(ServerHttpRequest request) {
            return Mono.fromCallable(() -> {
                        HttpKit.Answer answer = kit.respond(
                                request.getPath().value(), request.getURI().getRawQuery());
                        ResponseEntity.BodyBuilder response = ResponseEntity.status(answer.status());
                        answer.headers().forEach((name, value) -> response.header(name, value));
                        return response.body(answer.body());
                    })
                    .subscribeOn(Schedulers.boundedElastic());
        }
    }

    /** Routes beside the kit's: one not marked, one whose controller is, and a marked stream. */
    @RestController
    static class Others {
        final AtomicInteger open = new AtomicInteger();

        @PostMapping("/open/**")
        Mono<ResponseEntity<String>> open() {
            return Mono.fromSupplier(
                    () -> ResponseEntity.status(HttpStatus.CREATED).body("open " + open.incrementAndGet()));
        }

        @IdempotentRoute
        @PostMapping(value = "/stream/**", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<ServerSentEvent<String>> stream() {
            return Flux.just(
                    ServerSentEvent.builder("one").build(),
                    ServerSentEvent.builder("two").build());
        }
    }

    @IdempotentRoute
    @RestController
    static class MarkedController {
        final AtomicInteger runs = new AtomicInteger();

        @PostMapping("/marked/**")
        Mono<ResponseEntity<String>> marked() {
            return Mono.fromSupplier(
                    () -> ResponseEntity.status(HttpStatus.CREATED).body("marked " + runs.incrementAndGet()));
        }

        @PostMapping("/marked-empty/**")
        Mono<ResponseEntity<Void>> empty() {
            runs.incrementAndGet();
            return Mono.just(ResponseEntity.noContent()
                    .header("ETag", "\"v" + runs.get() + "\"")
                    .build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class Web {
        @Bean
        KitController kitController(HttpKit kit) {
            return new KitController(kit);
        }

        @Bean
        Others others() {
            return new Others();
        }

        @Bean
        MarkedController markedController() {
            return new MarkedController();
        }
    }

    private final HttpClient client = HttpClient.newHttpClient();
    private @Nullable AnnotationConfigApplicationContext web;
    private @Nullable URI base;

    /** The store the kit runs on: the embedded one here, each of the others in {@link HttpKitOnEveryStoreTest}. */
    protected KitStore openStore() throws Exception {
        return KitStore.caffeine();
    }

    @Override
    protected HttpHarness createHarness(HttpKit kit) throws Exception {
        KitStore store = openStore();
        AnnotationConfigApplicationContext application = new AnnotationConfigApplicationContext();
        application.register(Web.class);
        application.registerBean("httpKit", HttpKit.class, () -> kit);
        IdempotentRequests requests = IdempotentRequests.builder(Inbox.builder(store.store())
                        .consumer("webflux-" + UUID.randomUUID())
                        .build())
                .scope(IdempotencyScope.header(HttpKit.PRINCIPAL_HEADER))
                .maxBodyBytes(HttpKit.MAX_BODY_BYTES)
                .build();
        application.registerBean(
                "idempotency",
                WebFilter.class,
                () -> new IdempotencyWebFilter(requests, new ReactiveIdempotentRoutes(application)));
        application.refresh();
        web = application;
        DisposableServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .handle(new ReactorHttpHandlerAdapter(
                        WebHttpHandlerBuilder.applicationContext(application).build()))
                .bindNow(Duration.ofSeconds(10));
        base = URI.create("http://127.0.0.1:" + server.port());
        URI started = base;
        return new HttpHarness() {
            @Override
            public URI base() {
                return started;
            }

            @Override
            public void close() throws Exception {
                try (KitStore closing = store;
                        AnnotationConfigApplicationContext context = application) {
                    server.disposeNow(Duration.ofSeconds(10));
                }
            }
        };
    }

    @Test
    void aHandlerWithoutTheMark_isNotGuarded_oneWhoseControllerHasIt_is() throws Exception {
        String key = UUID.randomUUID().toString();
        String open = "/open/" + UUID.randomUUID();
        assertThat(post(open, key).body()).isEqualTo("open 1");
        HttpResponse<String> again = post(open, key);
        assertThat(again.body()).as("run again: the route is not marked").isEqualTo("open 2");
        assertThat(again.headers().firstValue(HttpKit.REPLAYED_HEADER)).isEmpty();

        String marked = "/marked/" + UUID.randomUUID();
        assertThat(post(marked, key).body()).isEqualTo("marked 1");
        HttpResponse<String> repeat = post(marked, key);
        assertThat(repeat.body()).isEqualTo("marked 1");
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
    }

    @Test
    void aResponseWithoutABody_isKeptAndReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        String path = "/marked-empty/" + UUID.randomUUID();
        HttpResponse<String> first = post(path, key);
        HttpResponse<String> repeat = post(path, key);
        assertThat(first.statusCode()).isEqualTo(204);
        assertThat(repeat.statusCode()).isEqualTo(204);
        assertThat(repeat.headers().firstValue("ETag"))
                .isEqualTo(first.headers().firstValue("ETag"));
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
    }

    @Test
    void aStreamingResponse_onAGuardedRoute_failsAndReleasesTheKey() throws Exception {
        String key = UUID.randomUUID().toString();
        String path = "/stream/" + UUID.randomUUID();
        HttpResponse<String> first = post(path, key);
        assertThat(first.statusCode()).as("a stream cannot be held back").isEqualTo(500);
        assertThat(first.body()).doesNotContain("one");
        HttpResponse<String> again = post(path, key);
        assertThat(again.statusCode())
                .as("the key was released: not a 409 of an unfinished claim")
                .isEqualTo(500);
        assertThat(again.headers().firstValue(HttpKit.REPLAYED_HEADER)).isEmpty();
    }

    @Test
    void aPathNoHandlerServes_isNotGuarded_andAnsweredByTheDispatcher() throws Exception {
        assertThat(post("/nowhere/" + UUID.randomUUID(), UUID.randomUUID().toString())
                        .statusCode())
                .isEqualTo(404);
    }

    private HttpResponse<String> post(String path, String key) throws Exception {
        if (base == null || web == null) {
            throw new IllegalStateException("the server did not start");
        }
        return client.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .header(HttpKit.KEY_HEADER, key)
                        .header(HttpKit.PRINCIPAL_HEADER, "alice")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
