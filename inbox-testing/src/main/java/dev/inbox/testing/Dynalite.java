package dev.inbox.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * dynalite, the open-source DynamoDB emulator from the npm registry, started with {@code node} —
 * not {@code npx}, so that stopping the process stops the server — on a free loopback port, in
 * memory. {@link #close()} stops it.
 *
 * <p>Where dynalite is found: {@code -Dinbox.test.dynalite.dir} (or {@code
 * INBOX_TEST_DYNALITE_DIR}), a directory whose {@code node_modules} holds it; else {@code
 * src/test/dynalite} of the current module or of a sibling {@code inbox-dynamodb} (this project's
 * build installs it there with {@code npm ci} from a committed lockfile).
 */
public final class Dynalite implements AutoCloseable {

    private static final long START_TIMEOUT_MS = 20_000;

    private final @Nullable Process process; // null for a server the tests were given
    private final String endpoint;

    private Dynalite(@Nullable Process process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /**
     * The DynamoDB endpoint a test uses: {@code INBOX_TEST_DYNAMODB_URL} when set (closing the
     * result then stops nothing), else a dynalite started here.
     *
     * @throws NoTestServerException when neither is possible, saying how to provide one
     */
    public static Dynalite forTests() throws IOException, InterruptedException {
        String configured = Settings.get("inbox.test.dynamodb.url", "INBOX_TEST_DYNAMODB_URL");
        if (configured != null) {
            return new Dynalite(null, configured);
        }
        return start();
    }

    /** Starts a dynalite of this JVM's own (about 1 s). */
    public static Dynalite start() throws IOException, InterruptedException {
        Path cli = cli();
        if (!Files.isRegularFile(cli)) {
            throw unavailable(cli + " is missing");
        }
        if (!Processes.onPath("node")) {
            throw unavailable("node is not on the PATH");
        }
        int port = Processes.freePort();
        Process process = new ProcessBuilder(List.of(
                        "node",
                        cli.toString(),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        Integer.toString(port),
                        "--createTableMs",
                        "0",
                        "--deleteTableMs",
                        "0",
                        "--updateTableMs",
                        "0"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Dynalite server = new Dynalite(process, "http://127.0.0.1:" + port);
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (true) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return server;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                    server.close();
                    throw new IllegalStateException("dynalite did not start on port " + port);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Where dynalite's command-line entry point is expected. */
    static Path cli() {
        String configured = Settings.get("inbox.test.dynalite.dir", "INBOX_TEST_DYNALITE_DIR");
        Stream<String> dirs = configured != null
                ? Stream.of(configured)
                : Stream.of("src/test/dynalite", "../inbox-dynamodb/src/test/dynalite");
        List<Path> candidates = dirs.map(dir -> Path.of(dir, "node_modules", "dynalite", "cli.js"))
                .toList();
        return candidates.stream().filter(Files::isRegularFile).findFirst().orElse(candidates.get(0));
    }

    private static NoTestServerException unavailable(String why) {
        return new NoTestServerException(
                "No DynamoDB endpoint for the tests: INBOX_TEST_DYNAMODB_URL is not set, and dynalite cannot"
                        + " be started here (" + why + "). Either set INBOX_TEST_DYNAMODB_URL (for example"
                        + " http://127.0.0.1:8000), or install Node.js with npm and run the build again: it"
                        + " installs dynalite with `npm ci` in inbox-dynamodb/src/test/dynalite (or set"
                        + " INBOX_TEST_DYNALITE_DIR to a directory where `npm install dynalite` ran).",
                null);
    }

    /** The endpoint, such as {@code http://127.0.0.1:41234}. */
    public String endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        if (process != null) {
            Processes.stop(process);
        }
    }
}
