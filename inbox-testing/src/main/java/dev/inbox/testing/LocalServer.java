package dev.inbox.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A database server of a test's own, from the local binaries, in a temporary directory on a free
 * loopback port, so that the test may crash and restart it without disturbing any shared server.
 * Every step is bounded; {@link #close()} stops it and deletes its files.
 */
public abstract class LocalServer implements AutoCloseable {

    /** The bound on each step (create, start, stop), in seconds. */
    static final long STEP_TIMEOUT_SECONDS = 60;

    final Path dir;
    final int port;

    LocalServer(String name) throws IOException {
        this.dir = Files.createTempDirectory(name);
        this.port = Processes.freePort();
    }

    /** A JDBC URL with connect and socket timeouts of a few seconds. */
    public abstract String jdbcUrl();

    /** Stops the server at once, as a crash would. */
    public abstract void crash() throws IOException, InterruptedException;

    /** Starts the server (again) on its port and files, and waits until it answers. */
    public abstract void restart() throws IOException, InterruptedException;

    /** Stops the server, however it is running. */
    abstract void stop() throws IOException, InterruptedException;

    /** The loopback port the server listens on, the same across restarts. */
    public int port() {
        return port;
    }

    @Override
    public final void close() {
        try {
            stop();
        } catch (IOException | InterruptedException | RuntimeException e) {
            // deleting the files anyway
        }
        Processes.deleteTree(dir);
    }

    static String run(List<String> command) throws IOException, InterruptedException {
        return Processes.run(command, STEP_TIMEOUT_SECONDS);
    }
}
