package dev.inbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Inbox;
import dev.inbox.http.IdempotencyScope;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * The HTTP kit through Spring MVC: a {@code DispatcherServlet} in a real Tomcat, the filter mapped to
 * every path, and only the {@link IdempotentRoute} handlers guarded ({@link IdempotentRoutes}).
 */
class SpringMvcHttpKitTest extends HttpContract {

    /** The kit's handler as an annotated controller method. */
    @RestController
    static class KitController {
        private final HttpKit kit;

        KitController(HttpKit kit) {
            this.kit = kit;
        }

        @IdempotentRoute
        @PostMapping(HttpKit.PATH_PREFIX + "**")
        ResponseEntity<byte[]> kit(HttpServletRequest request) {
            HttpKit.Answer answer = kit.respond(request.getRequestURI(), request.getQueryString());
            ResponseEntity.BodyBuilder response = ResponseEntity.status(answer.status());
            answer.headers().forEach((name, value) -> response.header(name, value));
            return response.body(answer.body());
        }
    }

    /** Routes beside the kit's: one not marked, one whose controller is. */
    @RestController
    static class Others {
        final AtomicInteger open = new AtomicInteger();

        @PostMapping("/open/**")
        ResponseEntity<String> open() {
            return ResponseEntity.status(HttpStatus.CREATED).body("open " + open.incrementAndGet());
        }
    }

    @IdempotentRoute
    @RestController
    static class MarkedController {
        final AtomicInteger runs = new AtomicInteger();

        @PostMapping("/marked/**")
        ResponseEntity<String> marked() {
            return ResponseEntity.status(HttpStatus.CREATED).body("marked " + runs.incrementAndGet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
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
    private @Nullable AnnotationConfigWebApplicationContext web;
    private @Nullable URI base;

    /** The store the kit runs on: the embedded one here, each of the others in {@link HttpKitOnEveryStoreTest}. */
    protected KitStore openStore() throws Exception {
        return KitStore.caffeine();
    }

    @Override
    protected HttpHarness createHarness(HttpKit kit) throws Exception {
        KitStore store = openStore();
        IdempotentRequests requests = IdempotentRequests.builder(Inbox.builder(store.store())
                        .consumer("mvc-" + UUID.randomUUID())
                        .build())
                .scope(IdempotencyScope.header(HttpKit.PRINCIPAL_HEADER))
                .maxBodyBytes(HttpKit.MAX_BODY_BYTES)
                .build();
        MvcServer server = new MvcServer(
                Web.class,
                application ->
                        application.addBeanFactoryPostProcessor(beans -> beans.registerSingleton("httpKit", kit)),
                requests);
        web = server.application;
        base = server.base;
        URI started = base;
        return new HttpHarness() {
            @Override
            public URI base() {
                return started;
            }

            @Override
            public void close() throws Exception {
                try (KitStore closing = store) {
                    server.close();
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
