package dev.inbox.testing;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Containers started with Testcontainers, one per backend and JVM, stopped when the JVM exits (a
 * shutdown hook, so they go away even where Testcontainers' reaper is disabled). Ports are
 * published on the loopback address only when the Docker engine is on this machine.
 */
final class Containers {

    private static final Duration STARTUP = Duration.ofMinutes(2);
    private static final long READY_TIMEOUT_MS = 60_000;
    private static final Map<Backend, String> STARTED = new ConcurrentHashMap<>();

    private Containers() {}

    /** True when Testcontainers finds a Docker engine that answers. */
    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The endpoint of this JVM's container for {@code backend}, started on first use. */
    static synchronized String endpoint(Backend backend) throws Exception {
        String known = STARTED.get(backend);
        if (known != null) {
            return known;
        }
        String image = backend.image();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(backend.containerPort())
                .withEnv(backend.containerEnv())
                .withStartupTimeout(STARTUP)
                .waitingFor(Wait.forListeningPort());
        if (!backend.containerCommand().isEmpty()) {
            container.withCommand(backend.containerCommand().toArray(String[]::new));
        }
        if (InetAddress.getByName(DockerClientFactory.instance().dockerHostIpAddress())
                .isLoopbackAddress()) {
            int port = backend.containerPort();
            container.withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                    .withPublishAllPorts(false)
                    .withPortBindings(new PortBinding(Ports.Binding.bindIp("127.0.0.1"), ExposedPort.tcp(port))));
        }
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "inbox-testing-stop-" + backend.kind()));
        String endpoint =
                backend.endpointAt().apply(container.getHost(), container.getMappedPort(backend.containerPort()));
        awaitAnswer(backend, endpoint);
        STARTED.put(backend, endpoint);
        return endpoint;
    }

    /** A listening port is not yet a server that answers (first-start initialisation): probe until it does. */
    private static void awaitAnswer(Backend backend, String endpoint) throws Exception {
        long deadline = System.currentTimeMillis() + READY_TIMEOUT_MS;
        while (true) {
            try {
                backend.probe().check(endpoint);
                return;
            } catch (Exception notYet) {
                if (System.currentTimeMillis() > deadline) {
                    throw notYet;
                }
                Thread.sleep(200);
            }
        }
    }
}
