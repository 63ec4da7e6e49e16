package dev.inbox.testing;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and rewrites the host and port of the endpoints {@link TestServers} returns (JDBC URLs of
 * PostgreSQL and MySQL, {@code redis://} URIs), for tests that reach a server through a proxy.
 */
public final class Endpoints {

    private static final Pattern AUTHORITY = Pattern.compile("//((?:[^@/?]*@)?)([^/:?@]+)(?::(\\d+))?");
    private static final Map<String, Integer> DEFAULT_PORTS =
            Map.of("jdbc:postgresql:", 5432, "jdbc:mysql:", 3306, "jdbc:mariadb:", 3306, "redis:", 6379);

    private Endpoints() {}

    /** The server's address in {@code endpoint}, with the scheme's default port when none is given. */
    public static InetSocketAddress address(String endpoint) {
        Matcher m = matcher(endpoint);
        int port = m.group(3) != null ? Integer.parseInt(m.group(3)) : defaultPort(endpoint);
        return InetSocketAddress.createUnresolved(m.group(2), port);
    }

    /** {@code endpoint} with its host and port replaced, everything else (user, database, options) kept. */
    public static String via(String endpoint, String host, int port) {
        Matcher m = matcher(endpoint);
        return endpoint.substring(0, m.start()) + "//" + m.group(1) + host + ":" + port + endpoint.substring(m.end());
    }

    /** {@code endpoint} with {@code name=value} appended to its query. */
    public static String withParameter(String endpoint, String name, String value) {
        return endpoint + (endpoint.contains("?") ? "&" : "?") + name + "=" + value;
    }

    private static Matcher matcher(String endpoint) {
        Matcher m = AUTHORITY.matcher(endpoint);
        if (!m.find()) {
            throw new IllegalArgumentException("no host in " + endpoint);
        }
        return m;
    }

    private static int defaultPort(String endpoint) {
        return DEFAULT_PORTS.entrySet().stream()
                .filter(e -> endpoint.startsWith(e.getKey()))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no port in " + endpoint));
    }
}
