package dev.inbox.tck;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the server a store's tests talk to, the same way for every backend: the endpoint in an
 * environment variable when it is set, else a default on loopback; the first that answers the
 * probe wins. When none answers, the test is skipped with a message saying how to provide one —
 * except under {@code CI=true}, where a missing backend fails the build.
 */
public final class TestEndpoint {

    /** Tells whether a server answers at an endpoint. */
    @FunctionalInterface
    public interface Probe {
        /** Connects to {@code endpoint}; throws, with the reason, when nothing answers. */
        void check(String endpoint) throws Exception;
    }

    private static final Map<String, String> RESOLVED = new ConcurrentHashMap<>();

    private TestEndpoint() {}

    /**
     * The endpoint of {@code backend}, resolved once per JVM.
     *
     * @param backend a name for messages, such as "PostgreSQL"
     * @param environmentVariable where a user names their own server, such as {@code
     *     INBOX_TEST_POSTGRES_URL}
     * @param localDefault the endpoint tried when the variable is not set
     * @param example an example value for the variable, shown when nothing answers
     */
    public static String resolve(
            String backend, String environmentVariable, String localDefault, String example, Probe probe) {
        String known = RESOLVED.get(backend);
        if (known != null) {
            return known;
        }
        String configured = System.getenv(environmentVariable);
        String candidate = configured != null ? configured : localDefault;
        try {
            probe.check(candidate);
            RESOLVED.put(backend, candidate);
            return candidate;
        } catch (Exception e) {
            String why = "No " + backend + " server: "
                    + (configured != null ? environmentVariable + "=" + configured : localDefault)
                    + " does not answer (" + e.getMessage() + "). Start " + backend + " there, or set "
                    + environmentVariable + " (for example " + example + ").";
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("CI=true: " + why, e);
            }
            Assumptions.abort(why);
            throw new AssertionError(why); // not reached
        }
    }
}
