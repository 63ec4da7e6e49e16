package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotentRequests;
import dev.inbox.spring.web.IdempotentRoute;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import reactor.core.publisher.Flux;

/**
 * {@code inbox.http.*}: a Boot servlet application makes a POST route retry-safe with two
 * properties — the paths and the scope — through Boot's own Tomcat, over real HTTP.
 */
class InboxHttpStarterTest {

    /** The application's handler: counts its runs, answers a created order. */
    static final class Orders extends HttpServlet {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            int run = runs.incrementAndGet();
            response.setStatus(201);
            response.setContentType("application/json");
            response.getWriter().write("{\"order\":" + run + "}");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({TomcatServletWebServerAutoConfiguration.class, InboxAutoConfiguration.class})
    static class App {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        ServletRegistrationBean<Orders> ordersServlet(Orders orders) {
            return new ServletRegistrationBean<>(orders, "/orders/*", "/unguarded/*");
        }
    }

    @Test
    void twoPropertiesMakeARouteRetrySafe_throughBootsTomcat() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .properties(
                        "spring.application.name=orders-http-" + UUID.randomUUID(),
                        "server.address=127.0.0.1",
                        "server.port=0",
                        "inbox.http.paths=/orders/*",
                        "inbox.http.scope=header:X-Tenant")
                .run()) {
            String base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
            Orders orders = context.getBean(Orders.class);
            HttpClient client = HttpClient.newHttpClient();
            String key = UUID.randomUUID().toString();

            HttpResponse<String> first =
                    client.send(post(base + "/orders/new", key), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> repeat =
                    client.send(post(base + "/orders/new", key), HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(repeat.statusCode()).isEqualTo(201);
            assertThat(repeat.body()).isEqualTo(first.body()).isEqualTo("{\"order\":1}");
            assertThat(repeat.headers().firstValue(IdempotentRequests.REPLAYED)).hasValue("true");
            assertThat(orders.runs).hasValue(1);

            assertThat(client.send(post(base + "/orders/new", null), HttpResponse.BodyHandlers.ofString())
                            .statusCode())
                    .as("no key on a guarded route")
                    .isEqualTo(400);
            client.send(post(base + "/unguarded/new", key), HttpResponse.BodyHandlers.ofString());
            client.send(post(base + "/unguarded/new", key), HttpResponse.BodyHandlers.ofString());
            assertThat(orders.runs)
                    .as("a route outside inbox.http.paths is not guarded")
                    .hasValue(3);
        }
    }

    private static HttpRequest post(String url, String key) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .header("X-Tenant", "acme")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"));
        if (key != null) {
            request.header(IdempotentRequests.HEADER, key);
        }
        return request.build();
    }

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
            .withPropertyValues("spring.application.name=orders");

    @Test
    void withoutInboxHttpSettings_noFilterIsRegistered_andOutsideAWebApplicationNeither() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotentRequests.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
                .withPropertyValues(
                        "spring.application.name=orders", "inbox.http.paths=/orders/*", "inbox.http.scope=global")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotentRequests.class));
    }

    @Test
    void theSettingsAreBoundToTheFilter() {
        web.withPropertyValues(
                        "inbox.http.paths=/orders/*,/payments/*",
                        "inbox.http.scope=principal",
                        "inbox.http.filter-order=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FilterRegistrationBean<?> filter =
                            context.getBean("inboxIdempotencyFilter", FilterRegistrationBean.class);
                    assertThat(filter.getFilter()).isInstanceOf(IdempotencyFilter.class);
                    assertThat(filter.getUrlPatterns()).containsExactly("/orders/*", "/payments/*");
                    assertThat(filter.getOrder()).isEqualTo(5);
                    assertThat(context.getBean(IdempotentRequests.class).failsOpen())
                            .as("fail closed by default")
                            .isFalse();
                });
        web.withPropertyValues("inbox.http.paths=/orders/*", "inbox.http.scope=principal", "inbox.http.fail-open=true")
                .run(context -> assertThat(
                                context.getBean(IdempotentRequests.class).failsOpen())
                        .isTrue());
    }

    @Test
    void withSpringMvc_theScopeAloneGuardsTheMarkedHandlers_andWithPathsBothAreGuarded() {
        web.withPropertyValues("inbox.http.scope=principal").run(context -> {
            assertThat(context).hasNotFailed();
            FilterRegistrationBean<?> filter = context.getBean("inboxIdempotencyFilter", FilterRegistrationBean.class);
            assertThat(filter.getUrlPatterns())
                    .as("every path, for marked handlers")
                    .containsExactly("/*");
            assertThat(context).doesNotHaveBean("inboxIdempotentRoutesFilter");
        });
        web.withPropertyValues("inbox.http.scope=principal", "inbox.http.paths=/orders/*")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FilterRegistrationBean<?> paths =
                            context.getBean("inboxIdempotencyFilter", FilterRegistrationBean.class);
                    FilterRegistrationBean<?> marked =
                            context.getBean("inboxIdempotentRoutesFilter", FilterRegistrationBean.class);
                    assertThat(paths.getUrlPatterns()).containsExactly("/orders/*");
                    assertThat(marked.getUrlPatterns()).containsExactly("/*");
                });
        web.withClassLoader(new FilteredClassLoader(RequestMappingHandlerMapping.class))
                .withPropertyValues("inbox.http.scope=principal", "inbox.http.paths=/orders/*")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasBean("inboxIdempotencyFilter");
                    assertThat(context).doesNotHaveBean("inboxIdempotentRoutesFilter");
                });
    }

    @RestController
    static class StreamingRoutes {
        @IdempotentRoute
        @PostMapping("/events")
        SseEmitter events() {
            return new SseEmitter();
        }
    }

    @IdempotentRoute
    @RestController
    static class ReactiveStreamingRoutes {
        @PostMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> events() {
            return Flux.just("a");
        }
    }

    @Test
    void aMarkedHandlerThatStreams_failsTheStartup_onSpringMvcAndWebFlux() {
        web.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
                .withBean(StreamingRoutes.class)
                .withPropertyValues("inbox.http.scope=principal")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .isInstanceOf(InboxStartupException.class)
                            .hasMessageContaining(
                                    StreamingRoutes.class.getName() + ".events() returns ResponseBodyEmitter");
                });
        ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, InboxAutoConfiguration.class))
                .withPropertyValues("spring.application.name=orders", "inbox.http.scope=principal");
        reactive.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("inboxIdempotencyWebFilter", WebFilter.class))
                    .isInstanceOf(Ordered.class);
        });
        reactive.withBean(ReactiveStreamingRoutes.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .isInstanceOf(InboxStartupException.class)
                    .hasMessageContaining(
                            ReactiveStreamingRoutes.class.getName() + ".events() streams text/event-stream");
        });
    }

    @Test
    void transactionalMode_joinsTheDataSourcesTransactions_andIsRefusedWithoutThem() {
        web.withUserConfiguration(PostgresDataSourceConfiguration.class)
                .withPropertyValues(
                        "inbox.store=postgres",
                        "inbox.create-schema=true",
                        "inbox.jdbc.table=inbox_boot_http",
                        "inbox.http.scope=principal",
                        "inbox.http.transactional=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(IdempotentRequests.class).transactional())
                            .isTrue();
                });
        web.withPropertyValues("inbox.store=memory", "inbox.http.scope=principal", "inbox.http.transactional=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining(
                                    "inbox.http.transactional=true needs a store that joins transactions");
                });
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, InboxAutoConfiguration.class))
                .withPropertyValues(
                        "spring.application.name=orders", "inbox.http.scope=principal", "inbox.http.transactional=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .isInstanceOf(InboxStartupException.class)
                            .hasMessageContaining("in a WebFlux application");
                });
    }

    @Test
    void aMissingOrWrongScope_orNoPaths_failTheStartupSayingWhatToSet() {
        web.withPropertyValues("inbox.http.paths=/orders/*").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(InboxStartupException.class)
                    .hasMessageContaining("inbox.http.scope is not");
        });
        web.withPropertyValues("inbox.http.paths=/orders/*", "inbox.http.scope=tenant")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("'tenant', which is not a scope");
                });
        web.withClassLoader(new FilteredClassLoader(RequestMappingHandlerMapping.class))
                .withPropertyValues("inbox.http.scope=global")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("inbox.http.paths is empty, and without Spring MVC");
                });
    }
}
