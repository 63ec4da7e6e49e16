package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spring.web.IdempotentRoute;
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
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The HTTP kit through a Boot Spring MVC application that guards its routes with one annotation
 * and one property: {@code @IdempotentRoute} on the handler method, {@code inbox.http.scope} (and
 * the kit's body limit), no {@code inbox.http.paths}.
 */
class BootMvcHttpKitTest extends HttpContract {

    @RestController
    static class Routes {
        private final HttpKit kit;
        final AtomicInteger open = new AtomicInteger();

        Routes(HttpKit kit) {
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

        @PostMapping("/open/**")
        ResponseEntity<String> open() {
            return ResponseEntity.status(HttpStatus.CREATED).body("open " + open.incrementAndGet());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        TomcatServletWebServerAutoConfiguration.class,
        DispatcherServletAutoConfiguration.class,
        WebMvcAutoConfiguration.class,
        InboxAutoConfiguration.class
    })
    static class App {
        @Bean
        Routes routes(HttpKit kit) {
            return new Routes(kit);
        }
    }

    private @Nullable URI base;

    @Override
    protected HttpHarness createHarness(HttpKit kit) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .initializers(app -> app.getBeanFactory().registerSingleton("httpKit", kit))
                .properties(
                        "spring.application.name=mvc-kit-" + UUID.randomUUID(),
                        "inbox.store=memory",
                        "server.address=127.0.0.1",
                        "server.port=0",
                        "inbox.http.scope=header:" + HttpKit.PRINCIPAL_HEADER,
                        "inbox.http.max-body-size=" + HttpKit.MAX_BODY_BYTES + "B")
                .run();
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
    void aHandlerWithoutTheAnnotation_runsOnEachRepeat() throws Exception {
        if (base == null) {
            throw new IllegalStateException("the application did not start");
        }
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/open/" + UUID.randomUUID()))
                .header(HttpKit.KEY_HEADER, UUID.randomUUID().toString())
                .header(HttpKit.PRINCIPAL_HEADER, "alice")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("open 1");
        assertThat(client.send(request, HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("open 2");
    }
}
