package dev.inbox.spring.web;

import dev.inbox.http.IdempotencyFilter;
import dev.inbox.http.IdempotentRequests;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * A Spring MVC application in a real Tomcat on a free loopback port: a {@code DispatcherServlet}
 * over {@code configuration}, with the {@link IdempotencyFilter} of {@code requests} mapped to every
 * path and guarding the {@link IdempotentRoute} handlers ({@link IdempotentRoutes}).
 *
 * <p>Tomcat's JMX registry is off, as in Spring Boot: the module's test classes start servers side
 * by side, and every embedded Tomcat registers its class loader under the same name, so two starts
 * at once failed one of them ({@link MvcServerTest}).
 */
final class MvcServer implements AutoCloseable {

    static {
        Registry.disableRegistry();
    }

    final AnnotationConfigWebApplicationContext application = new AnnotationConfigWebApplicationContext();
    final URI base;
    private final Tomcat tomcat = new Tomcat();

    MvcServer(
            Class<?> configuration, Consumer<AnnotationConfigWebApplicationContext> beans, IdempotentRequests requests)
            throws Exception {
        Path dir = Files.createTempDirectory("inbox-spring-mvc");
        tomcat.setBaseDir(dir.toString());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", dir.toString());

        application.register(configuration);
        beans.accept(application);
        Tomcat.addServlet(context, "dispatcher", new DispatcherServlet(application))
                .setLoadOnStartup(1);
        context.addServletMappingDecoded("/", "dispatcher");

        FilterDef filter = new FilterDef();
        filter.setFilterName("idempotency");
        filter.setFilter(new IdempotencyFilter(requests, new IdempotentRoutes(application)));
        context.addFilterDef(filter);
        FilterMap everywhere = new FilterMap();
        everywhere.setFilterName("idempotency");
        everywhere.addURLPattern("/*");
        context.addFilterMap(everywhere);
        try {
            tomcat.start();
        } catch (LifecycleException e) {
            close();
            throw e;
        }
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }
}
