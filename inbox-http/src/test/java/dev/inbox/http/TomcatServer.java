package dev.inbox.http;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * An embedded Tomcat on a free loopback port: a stand-in for authentication (the principal is the
 * {@code X-User} header, as a real authentication filter would set it), then the filter under test
 * on {@code /payments/*}, then the servlet.
 */
final class TomcatServer implements AutoCloseable {

    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector();

    TomcatServer(Filter filter, HttpServlet servlet) throws Exception {
        Path base = Files.createTempDirectory("inbox-http-tomcat");
        tomcat.setBaseDir(base.toString());
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "payments", servlet);
        context.addServletMappingDecoded("/payments/*", "payments");
        add(context, "authentication", (jakarta.servlet.Filter) (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String user = http.getHeader("X-User");
            chain.doFilter(
                    user == null
                            ? request
                            : new HttpServletRequestWrapper(http) {
                                @Override
                                public Principal getUserPrincipal() {
                                    return () -> user;
                                }
                            },
                    response);
        });
        add(context, "idempotency", filter);
        tomcat.start();
    }

    private static void add(Context context, String name, Filter filter) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(name);
        definition.setFilter(filter);
        context.addFilterDef(definition);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName(name);
        mapping.addURLPattern("/payments/*");
        context.addFilterMap(mapping);
    }

    String url(String pathAndQuery) {
        return "http://127.0.0.1:" + connector.getLocalPort() + pathAndQuery;
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }
}
