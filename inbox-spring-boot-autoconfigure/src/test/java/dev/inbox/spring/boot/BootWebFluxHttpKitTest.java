package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spring.web.IdempotentRoute;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.error.ErrorWebFluxAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The HTTP kit through a Boot WebFlux application on Reactor Netty that guards its routes with one
 * annotation and properties: {@code @IdempotentRoute} on the kit's handler, {@code
 * inbox.http.scope}, {@code inbox.http.paths} for one route that has no annotation, and {@code
 * inbox.http.wait-while-in-flight} (the kit allows a 409 or the replay for a key in flight; with
 * the wait, its concurrent requests all get the replay).
 */
class BootWebFluxHttpKitTest extends HttpContract {

    @RestController
    static class Routes {
        private final HttpKit kit;
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger pathed = new AtomicInteger();

        Routes(HttpKit kit) {
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

        @PostMapping("/open/**")
        ResponseEntity<String> open() {
            return ResponseEntity.status(HttpStatus.CREATED).body("open " + open.incrementAndGet());
        }

        @PostMapping("/pathed/**")
        ResponseEntity<String> pathed() {
            return ResponseEntity.status(HttpStatus.CREATED).body("pathed " + pathed.incrementAndGet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        NettyReactiveWebServerAutoConfiguration.class,
        HttpHandlerAutoConfiguration.class,
        WebFluxAutoConfiguration.class,
        ErrorWebFluxAutoConfiguration.class,
        InboxAutoConfiguration.class
    })
    static class App {
        @Bean
        Routes routes(HttpKit kit) {
            return new Routes(kit);
        }
    }

    private @Nullable URI base;
    private @Nullable HttpKit kit;

    @Override
    protected HttpHarness createHarness(HttpKit kit) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.REACTIVE)
                .initializers(app -> app.getBeanFactory().registerSingleton("httpKit", kit))
                .properties(
                        "spring.application.name=webflux-kit-" + UUID.randomUUID(),
                        "inbox.store=memory",
                        "server.address=127.0.0.1",
                        "server.port=0",
                        "inbox.http.scope=header:" + HttpKit.PRINCIPAL_HEADER,
                        "inbox.http.paths=/pathed/**",
                        "inbox.http.wait-while-in-flight=20s",
                        "inbox.http.max-body-size=" + HttpKit.MAX_BODY_BYTES + "B")
                .run();
        this.kit = kit;
        URI started = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
        base = started;
        return new HttpHarness() {
            @Override
            public URI base() {
                return started;
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }

    @Test
    void aHandlerWithoutTheAnnotation_runsOnEachRepeat_unlessItsPathIsGuarded() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(post("/open/" + key, key).body()).isEqualTo("open 1");
        assertThat(post("/open/" + key, key).body()).isEqualTo("open 2");

        HttpResponse<String> first = post("/pathed/" + key, key);
        HttpResponse<String> repeat = post("/pathed/" + key, key);
        assertThat(first.body()).isEqualTo("pathed 1");
        assertThat(repeat.body()).isEqualTo("pathed 1");
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
    }

    @Test
    void aRepeatWhileTheFirstRuns_waitsWithoutAThread_andGetsTheFirstResponse() throws Exception {
        if (kit == null) {
            throw new IllegalStateException("the application did not start");
        }
        String path = HttpKit.PATH_PREFIX + "waits-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<String>> first = postAsync(path + "?sleep=1500", key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (kit.runs(path) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(kit.runs(path)).as("the first request's handler started").isEqualTo(1);
        HttpResponse<String> repeat = postAsync(path + "?sleep=1500", key).get(30, TimeUnit.SECONDS);

        assertThat(repeat.statusCode()).as("not a 409: it waited").isEqualTo(201);
        assertThat(repeat.headers().firstValue(HttpKit.REPLAYED_HEADER)).hasValue("true");
        assertThat(repeat.body()).isEqualTo(first.get(30, TimeUnit.SECONDS).body());
        assertThat(kit.runs(path)).isEqualTo(1);
    }

    private CompletableFuture<HttpResponse<String>> postAsync(String path, String key) {
        if (base == null) {
            throw new IllegalStateException("the application did not start");
        }
        return HttpClient.newHttpClient()
                .sendAsync(
                        HttpRequest.newBuilder(base.resolve(path))
                                .header(HttpKit.KEY_HEADER, key)
                                .header(HttpKit.PRINCIPAL_HEADER, "alice")
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String key) throws Exception {
        if (base == null) {
            throw new IllegalStateException("the application did not start");
        }
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(base.resolve(path))
                                .header(HttpKit.KEY_HEADER, key)
                                .header(HttpKit.PRINCIPAL_HEADER, "alice")
                                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
