package dev.inbox.benchmarks.storm;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A database server of a test's own, from the local binaries, in a temporary directory on a free
 * loopback port, so that the test may crash and restart it without disturbing the shared server.
 * Every step is bounded; {@link #close()} stops it and deletes its files.
 */
abstract class LocalServer implements AutoCloseable {

    static final long STEP_TIMEOUT_SECONDS = 60;

    final Path dir;
    final int port;

    LocalServer(String name) throws IOException {
        this.dir = Files.createTempDirectory(name);
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
    }

    /** A JDBC URL with connect and socket timeouts, for the storm runner. */
    abstract String jdbcUrl();

    /** Stops the server at once, as a crash would. */
    abstract void crash() throws IOException, InterruptedException;

    /** Starts the server (again) on its port and files, and waits until it answers. */
    abstract void restart() throws IOException, InterruptedException;

    /** Stops the server, however it is running. */
    abstract void stop() throws IOException, InterruptedException;

    @Override
    public final void close() {
        try {
            stop();
        } catch (IOException | InterruptedException | RuntimeException e) {
            // deleting the files anyway
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp directory
        }
    }

    /** Runs a command to its end, within the step timeout; returns its output, or throws with it. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out: " + String.join(" ", command));
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** True when {@code binary} is an executable on the PATH. */
    static boolean onPath(String binary) {
        String path = System.getenv("PATH");
        return path != null
                && Stream.of(path.split(File.pathSeparator)).anyMatch(p -> Files.isExecutable(Path.of(p, binary)));
    }
}
