package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A marked handler that streams, or (Spring MVC) answers asynchronously, is refused by {@code checkHandlers()}. */
class StreamingRoutesCheckTest {

    @RestController
    static class MvcRoutes {
        @IdempotentRoute
        @PostMapping("/whole")
        ResponseEntity<String> whole() {
            return ResponseEntity.ok("done");
        }

        @PostMapping("/events-unmarked")
        SseEmitter unmarked() {
            return new SseEmitter();
        }
    }

    @RestController
    static class MvcStreams {
        @IdempotentRoute
        @PostMapping("/events")
        SseEmitter events() {
            return new SseEmitter();
        }

        @IdempotentRoute
        @PostMapping("/download")
        ResponseEntity<StreamingResponseBody> download() {
            return ResponseEntity.ok(out -> out.write(1));
        }

        @IdempotentRoute
        @PostMapping("/later")
        Callable<String> later() {
            return () -> "later";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {
        @Bean
        MvcRoutes routes() {
            return new MvcRoutes();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class MvcWithStreams {
        @Bean
        MvcRoutes routes() {
            return new MvcRoutes();
        }

        @Bean
        MvcStreams streams() {
            return new MvcStreams();
        }
    }

    @RestController
    static class FluxRoutes {
        @IdempotentRoute
        @PostMapping("/whole")
        Mono<String> whole() {
            return Mono.just("done");
        }

        @IdempotentRoute
        @PostMapping("/list")
        Flux<String> list() {
            return Flux.just("a", "b");
        }

        @PostMapping(value = "/events-unmarked", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> unmarked() {
            return Flux.just("a");
        }
    }

    @IdempotentRoute
    @RestController
    static class FluxStreams {
        @PostMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> events() {
            return Flux.just("a");
        }

        @PostMapping("/sse")
        Flux<ServerSentEvent<String>> sse() {
            return Flux.just(ServerSentEvent.builder("a").build());
        }

        @PostMapping(value = "/lines", produces = MediaType.APPLICATION_NDJSON_VALUE)
        Flux<String> lines() {
            return Flux.just("a");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class WebFlux {
        @Bean
        FluxRoutes routes() {
            return new FluxRoutes();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class WebFluxWithStreams {
        @Bean
        FluxRoutes routes() {
            return new FluxRoutes();
        }

        @Bean
        FluxStreams streams() {
            return new FluxStreams();
        }
    }

    @Test
    void springMvc_markedWholeResponses_pass_markedStreamsAndAsyncResults_areNamed() {
        try (AnnotationConfigWebApplicationContext ok = mvc(Mvc.class)) {
            assertThatCode(() -> new IdempotentRoutes(ok).checkHandlers()).doesNotThrowAnyException();
        }
        try (AnnotationConfigWebApplicationContext streams = mvc(MvcWithStreams.class)) {
            assertThatThrownBy(() -> new IdempotentRoutes(streams).checkHandlers())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("events() returns ResponseBodyEmitter")
                    .hasMessageContaining("download() returns StreamingResponseBody")
                    .hasMessageContaining("later() returns Callable")
                    .hasMessageNotContaining("whole()")
                    .hasMessageNotContaining("unmarked()");
        }
    }

    @Test
    void webFlux_markedWholeResponses_pass_markedStreamsAreNamed() {
        try (AnnotationConfigApplicationContext ok = new AnnotationConfigApplicationContext(WebFlux.class)) {
            assertThatCode(() -> new ReactiveIdempotentRoutes(ok).checkHandlers())
                    .as("a Flux answered whole (a JSON array) is held back and kept")
                    .doesNotThrowAnyException();
        }
        try (AnnotationConfigApplicationContext streams =
                new AnnotationConfigApplicationContext(WebFluxWithStreams.class)) {
            assertThatThrownBy(() -> new ReactiveIdempotentRoutes(streams).checkHandlers())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("events() streams text/event-stream")
                    .hasMessageContaining("sse() streams ServerSentEvent")
                    .hasMessageContaining("lines() streams application/x-ndjson")
                    .hasMessageNotContaining("list()")
                    .hasMessageNotContaining("unmarked()");
        }
    }

    private static AnnotationConfigWebApplicationContext mvc(Class<?> configuration) {
        AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();
        context.setServletContext(new MockServletContext());
        context.register(configuration);
        context.refresh();
        return context;
    }
}
