package dev.inbox.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The servers store tests talk to, resolved once per JVM and the same way for every backend:
 *
 * <ol>
 *   <li>the endpoint in the backend's environment variable ({@code INBOX_TEST_POSTGRES_URL},
 *       {@code INBOX_TEST_MYSQL_URL}, {@code INBOX_TEST_REDIS_URL}, {@code INBOX_TEST_RABBITMQ_URL})
 *       — when set, it must answer;
 *   <li>else the local default, if it answers ({@code 127.0.0.1} on the standard port);
 *   <li>else a container started with Testcontainers from the backend's image ({@code
 *       postgres:16}, {@code mariadb:11}, {@code redis:7}, {@code rabbitmq:4}; set {@code INBOX_TEST_<KIND>_IMAGE} or
 *       {@code -Dinbox.test.<kind>.image} to change it; the MySQL backend is tested on MariaDB, and
 *       a MySQL image is for you to try);
 *   <li>else a {@link NoTestServerException} whose message names all three ways.
 * </ol>
 *
 * <p>{@code INBOX_TEST_SERVERS=containers} (or {@code -Dinbox.test.servers=containers}) goes
 * straight to the container for every backend. The {@code *Container()} methods always use a
 * container, for tests that must prove the container path itself.
 *
 * <p>The JDBC endpoints are probed with {@link java.sql.DriverManager}: the driver must be on the
 * test class path (it is, in a store's tests).
 */
public final class TestServers {

    private static final Map<Backend, String> RESOLVED = new ConcurrentHashMap<>();

    private TestServers() {}

    /** A PostgreSQL JDBC URL with user and password, for a database the tests may create tables in. */
    public static String postgres() {
        return resolve(Backend.POSTGRES);
    }

    /** A MySQL or MariaDB JDBC URL (for MySQL Connector/J) with user and password. */
    public static String mysql() {
        return resolve(Backend.MYSQL);
    }

    /** A {@code redis://} URI of a standalone Redis server. */
    public static String redis() {
        return resolve(Backend.REDIS);
    }

    /** An {@code amqp://} URI of a RabbitMQ broker, with user and password. */
    public static String rabbitmq() {
        return resolve(Backend.RABBITMQ);
    }

    /** A PostgreSQL JDBC URL of a container this JVM started (whatever else answers). */
    public static String postgresContainer() {
        return container(Backend.POSTGRES);
    }

    /** A MySQL/MariaDB JDBC URL of a container this JVM started (whatever else answers). */
    public static String mysqlContainer() {
        return container(Backend.MYSQL);
    }

    /** A {@code redis://} URI of a container this JVM started (whatever else answers). */
    public static String redisContainer() {
        return container(Backend.REDIS);
    }

    static String resolve(Backend backend) {
        return RESOLVED.computeIfAbsent(backend, b -> find(b, ContainerPath.TESTCONTAINERS));
    }

    /** How a container is had; Testcontainers, but a test of the order of resolution may give another. */
    interface ContainerPath {
        ContainerPath TESTCONTAINERS = new ContainerPath() {
            @Override
            public boolean available() {
                return Containers.dockerAvailable();
            }

            @Override
            public String start(Backend backend) throws Exception {
                return Containers.endpoint(backend);
            }
        };

        boolean available();

        String start(Backend backend) throws Exception;
    }

    static String find(Backend backend, ContainerPath containers) {
        if (Settings.containersForced()) {
            return container(backend, containers);
        }
        String configured = Settings.get("inbox.test." + backend.kind() + ".url", backend.variable());
        if (configured != null) {
            try {
                backend.probe().check(configured);
                return configured;
            } catch (Exception e) {
                throw new NoTestServerException(
                        "No " + backend.name() + " server for the tests: " + backend.variable() + "=" + configured
                                + " does not answer (" + reason(e) + "). Start it, or unset "
                                + backend.variable() + " to use a local server or a container.",
                        e);
            }
        }
        List<String> tried = new ArrayList<>();
        Exception last;
        try {
            backend.probe().check(backend.localDefault());
            return backend.localDefault();
        } catch (Exception e) {
            tried.add(backend.localDefault() + " does not answer (" + reason(e) + ")");
            last = e;
        }
        if (containers.available()) {
            try {
                return containers.start(backend);
            } catch (Exception e) {
                tried.add("a container from " + backend.image() + " did not start (" + reason(e) + ")");
                last = e;
            }
        } else {
            tried.add("no Docker engine answers, so no container from " + backend.image() + " could be started");
        }
        throw new NoTestServerException(howToProvide(backend, tried), last);
    }

    private static String container(Backend backend) {
        return container(backend, ContainerPath.TESTCONTAINERS);
    }

    private static String container(Backend backend, ContainerPath containers) {
        if (!containers.available()) {
            throw new NoTestServerException(
                    "No " + backend.name() + " container: no Docker engine answers. Start Docker (and, on a"
                            + " machine without an image registry, build the images with"
                            + " inbox-testing/src/docker/build-images.sh), or unset INBOX_TEST_SERVERS.",
                    null);
        }
        try {
            return containers.start(backend);
        } catch (Exception e) {
            throw new NoTestServerException(
                    "No " + backend.name() + " container: " + backend.image() + " did not start (" + reason(e)
                            + "). Set " + backend.imageVariable() + " to an image this Docker engine has.",
                    e);
        }
    }

    private static String howToProvide(Backend backend, List<String> tried) {
        return "No " + backend.name() + " server for the tests. Tried: " + String.join("; ", tried)
                + ". Provide one in any of three ways: (1) set " + backend.variable() + " (for example "
                + backend.example() + "); (2) " + backend.localHint() + "; (3) run a Docker engine, and"
                + " the tests start a container from " + backend.image() + " (set " + backend.imageVariable()
                + " to use another image).";
    }

    private static String reason(Exception e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName()
                + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }
}
