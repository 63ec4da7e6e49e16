package dev.inbox.http;

import dev.inbox.tck.http.HttpKit;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * An embedded Tomcat on a free loopback port: a stand-in for authentication (the principal is the
 * {@code X-User} header, or the HTTP kit's {@value HttpKit#PRINCIPAL_HEADER}, as a real
 * authentication filter would set it), then the filter under test, then the servlets, each on its
 * URL pattern.
 */
final class TomcatServer implements AutoCloseable {

    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector();

    /** The filter in front of {@code payments} on {@code /payments/*}. */
    TomcatServer(Filter filter, HttpServlet payments) throws Exception {
        this(filter, Map.of("/payments/*", payments));
    }

    /** The filter in front of each servlet, on its URL pattern. */
    TomcatServer(Filter filter, Map<String, HttpServlet> servlets) throws Exception {
        this(List.of(filter), servlets);
    }

    /** The filters, in order, in front of each servlet, on its URL pattern. */
    TomcatServer(List<Filter> filters, Map<String, HttpServlet> servlets) throws Exception {
        Path base = Files.createTempDirectory("inbox-http-tomcat");
        tomcat.setBaseDir(base.toString());
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.getService().addConnector(connector);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", base.toString());
        Filter authentication = (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String header = http.getHeader("X-User");
            String user = header != null ? header : http.getHeader(HttpKit.PRINCIPAL_HEADER);
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
        };
        define(context, "authentication", authentication);
        for (int i = 0; i < filters.size(); i++) {
            define(context, "idempotency-" + i, filters.get(i));
        }
        servlets.forEach((pattern, servlet) -> {
            String name = "servlet " + pattern;
            Tomcat.addServlet(context, name, servlet);
            context.addServletMappingDecoded(pattern, name);
            map(context, "authentication", pattern);
            for (int i = 0; i < filters.size(); i++) {
                map(context, "idempotency-" + i, pattern);
            }
        });
        tomcat.start();
    }

    private static void define(Context context, String name, Filter filter) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(name);
        definition.setFilter(filter);
        context.addFilterDef(definition);
    }

    private static void map(Context context, String filter, String pattern) {
        FilterMap mapping = new FilterMap();
        mapping.setFilterName(filter);
        mapping.addURLPattern(pattern);
        context.addFilterMap(mapping);
    }

    String url(String pathAndQuery) {
        return base() + pathAndQuery;
    }

    /** The server's base URL, without a trailing slash. */
    String base() {
        return "http://127.0.0.1:" + connector.getLocalPort();
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }
}
