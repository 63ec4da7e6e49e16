package dev.inbox.dynamodb;

import dev.inbox.tck.TestEndpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * dynalite, the open-source DynamoDB emulator, installed from the npm registry by the lockfile in
 * {@code src/test/dynalite} ({@code npm ci}, which {@code .ci/run} runs) and started here with
 * {@code node} — not {@code npx}, so that stopping the process stops the server — on a free
 * loopback port, in memory. {@link #close()} stops it.
 */
public final class DynaliteServer implements AutoCloseable {

    /** Where {@code npm ci} installs dynalite, from this module's directory or from a sibling's. */
    static final Path CLI = Stream.of("src/test/dynalite", "../inbox-dynamodb/src/test/dynalite")
            .map(dir -> Path.of(dir, "node_modules/dynalite/cli.js"))
            .filter(Files::isRegularFile)
            .findFirst()
            .orElse(Path.of("src/test/dynalite/node_modules/dynalite/cli.js"));

    private final Process process; // null for a server the tests were given
    private final String endpoint;

    private DynaliteServer(Process process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /**
     * The server the tests use: {@code INBOX_TEST_DYNAMODB_URL} when set (closing it then does
     * nothing), else a dynalite started here; see {@link TestEndpoint} for what happens when
     * neither is possible.
     */
    public static DynaliteServer forTests() throws IOException, InterruptedException {
        String configured = System.getenv("INBOX_TEST_DYNAMODB_URL");
        if (configured != null) {
            return new DynaliteServer(null, configured);
        }
        TestEndpoint.resolve(
                "dynalite",
                "INBOX_TEST_DYNAMODB_URL",
                "node + dynalite",
                "http://host:8000",
                DynaliteServer::checkInstalled);
        return start();
    }

    /** Throws, saying how to install it, when dynalite or node is missing. */
    private static void checkInstalled(String ignored) throws IOException, InterruptedException {
        if (!Files.isRegularFile(CLI)) {
            throw new IllegalStateException(CLI + " is missing; run `npm ci` in inbox-dynamodb/src/test/dynalite");
        }
        Process node = new ProcessBuilder("node", "--version")
                .redirectErrorStream(true)
                .start();
        if (!node.waitFor(10, TimeUnit.SECONDS) || node.exitValue() != 0) {
            throw new IllegalStateException("node is not on the PATH");
        }
    }

    private static DynaliteServer start() throws IOException, InterruptedException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Process process = new ProcessBuilder(
                        "node",
                        CLI.toString(),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        Integer.toString(port),
                        "--createTableMs",
                        "0",
                        "--deleteTableMs",
                        "0",
                        "--updateTableMs",
                        "0")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        DynaliteServer server = new DynaliteServer(process, "http://127.0.0.1:" + port);
        long deadline = System.currentTimeMillis() + 20_000;
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

    public String endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
