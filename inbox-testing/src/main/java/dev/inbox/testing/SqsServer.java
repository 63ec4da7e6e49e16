package dev.inbox.testing;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * A real SQS server for the tests: ElasticMQ (the open-source, SQS-compatible server on Maven
 * Central), started in this JVM on a free loopback port — so the test's build needs {@code
 * org.elasticmq:elasticmq-rest-sqs_2.13} in test scope. Up in about two seconds; it redelivers
 * after the visibility timeout, honours {@code ChangeMessageVisibility}, redrive policies and
 * FIFO deduplication.
 *
 * <p>{@link #endpoint()} is what most tests want: the server named by {@code INBOX_TEST_SQS_URL}
 * (or {@code -Dinbox.test.sqs.url}) when set — it must answer — else one ElasticMQ this JVM starts
 * once and stops when it exits. Any access key, secret and region are accepted by ElasticMQ.
 */
public final class SqsServer implements AutoCloseable {

    private static final String BUILDER = "org.elasticmq.rest.sqs.SQSRestServerBuilder";
    private static @Nullable String shared;

    private final Object server;
    private final String endpoint;

    private SqsServer(Object server, String endpoint) {
        this.server = server;
        this.endpoint = endpoint;
    }

    /**
     * The endpoint of the server the tests share ({@code http://127.0.0.1:<port>}): {@code
     * INBOX_TEST_SQS_URL} when set, else an ElasticMQ started once per JVM.
     *
     * @throws NoTestServerException if the named server does not answer or none could be started
     */
    public static synchronized String endpoint() {
        if (shared != null) {
            return shared;
        }
        String named = Settings.get("inbox.test.sqs.url", "INBOX_TEST_SQS_URL");
        if (named != null) {
            try {
                probe(named);
            } catch (IOException | RuntimeException e) {
                throw new NoTestServerException("INBOX_TEST_SQS_URL=" + named + " does not answer: " + e, e);
            }
            shared = named;
            return named;
        }
        try {
            SqsServer server = start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "inbox-sqs-stop"));
            shared = server.url();
            return shared;
        } catch (RuntimeException e) {
            throw new NoTestServerException(
                    "no SQS server: set INBOX_TEST_SQS_URL to one, or let the tests start ElasticMQ (" + e + ")", e);
        }
    }

    /**
     * Starts an ElasticMQ of the caller's own on a free loopback port and waits until it listens.
     *
     * @throws IllegalStateException if ElasticMQ is not on the class path or did not start
     */
    public static SqsServer start() {
        Class<?> builderClass;
        try {
            builderClass = Class.forName(BUILDER, true, SqsServer.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(BUILDER + " is not on the test class path: add"
                    + " org.elasticmq:elasticmq-rest-sqs_2.13 (test scope), or point INBOX_TEST_SQS_URL at a server");
        }
        try {
            Object builder = call(builderClass, null, "withPort", new Class<?>[] {int.class}, 0);
            builder = call(builder.getClass(), builder, "withInterface", new Class<?>[] {String.class}, "127.0.0.1");
            Object server = call(builder.getClass(), builder, "start", new Class<?>[0]);
            Object binding = call(server.getClass(), server, "waitUntilStarted", new Class<?>[0]);
            InetSocketAddress address =
                    (InetSocketAddress) call(binding.getClass(), binding, "localAddress", new Class<?>[0]);
            return new SqsServer(server, "http://127.0.0.1:" + address.getPort());
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new IllegalStateException("ElasticMQ did not start: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("ElasticMQ did not start: " + e, e);
        }
    }

    private static Object call(Class<?> type, @Nullable Object target, String name, Class<?>[] types, Object... args)
            throws ReflectiveOperationException {
        Method method = type.getMethod(name, types);
        method.setAccessible(true);
        return method.invoke(target, args);
    }

    /** {@code http://127.0.0.1:<port>}, the endpoint to give the SDK's {@code endpointOverride}. */
    public String url() {
        return endpoint;
    }

    /** Stops the server; its queues and messages are gone. */
    @Override
    public void close() {
        try {
            call(server.getClass(), server, "stopAndWait", new Class<?>[0]);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // stopping at exit: nothing more to do
        }
    }

    private static void probe(String url) throws IOException {
        URI uri = URI.create(url);
        int port = uri.getPort() == -1 ? ("https".equals(uri.getScheme()) ? 443 : 80) : uri.getPort();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), port), Probe.TIMEOUT_MS);
        }
    }
}
