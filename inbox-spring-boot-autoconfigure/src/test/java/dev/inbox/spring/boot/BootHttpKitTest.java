package dev.inbox.spring.boot;

import dev.inbox.tck.http.HttpContract;
import dev.inbox.tck.http.HttpHarness;
import dev.inbox.tck.http.HttpKit;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.UUID;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The HTTP kit through the Boot starter: a Boot servlet application on Boot's own Tomcat whose
 * {@code /kit/*} routes are made retry-safe by properties alone ({@code inbox.http.paths}, {@code
 * inbox.http.scope}, {@code inbox.http.max-body-size}), on the embedded store the starter picks.
 */
class BootHttpKitTest extends HttpContract {

    /** The kit's handler as a servlet of the application. */
    static final class KitServlet extends HttpServlet {
        private final transient HttpKit kit;

        KitServlet(HttpKit kit) {
            this.kit = kit;
        }

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            kit.respond(request.getRequestURI(), request.getQueryString())
                    .writeTo(response::setStatus, response::addHeader, response.getOutputStream());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({TomcatServletWebServerAutoConfiguration.class, InboxAutoConfiguration.class})
    static class App {}

    @Override
    protected HttpHarness createHarness(HttpKit kit) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.SERVLET)
                .initializers(app -> app.getBeanFactory()
                        .registerSingleton(
                                "kitServlet",
                                new ServletRegistrationBean<>(new KitServlet(kit), HttpKit.PATH_PREFIX + "*")))
                .properties(
                        "spring.application.name=http-kit-" + UUID.randomUUID(),
                        "inbox.store=memory",
                        "server.address=127.0.0.1",
                        "server.port=0",
                        "inbox.http.paths=" + HttpKit.PATH_PREFIX + "*",
                        "inbox.http.scope=header:" + HttpKit.PRINCIPAL_HEADER,
                        "inbox.http.max-body-size=" + HttpKit.MAX_BODY_BYTES + "B")
                .run();
        URI base = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
        return new HttpHarness() {
            @Override
            public URI base() {
                return base;
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }
}
