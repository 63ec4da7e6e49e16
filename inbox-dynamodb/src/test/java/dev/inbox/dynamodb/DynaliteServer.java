package dev.inbox.dynamodb;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * dynalite, the open-source DynamoDB emulator, installed from the npm registry by the lockfile in
 * {@code src/test/dynalite} ({@code npm ci}, which {@code .ci/run} runs) and started here with
 * {@code node} — not {@code npx}, so that stopping the process stops the server — on a free
 * loopback port, in memory. {@link #close()} stops it.
 */
final class DynaliteServer implements AutoCloseable {

    static final Path CLI = Path.of("src/test/dynalite/node_modules/dynalite/cli.js");

    private final Process process;
    private final int port;

    private DynaliteServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Throws, saying how to install it, when dynalite or node is missing. */
    static void checkInstalled(String ignored) throws IOException, InterruptedException {
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

    static DynaliteServer start() throws IOException, InterruptedException {
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
        DynaliteServer server = new DynaliteServer(process, port);
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

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
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
