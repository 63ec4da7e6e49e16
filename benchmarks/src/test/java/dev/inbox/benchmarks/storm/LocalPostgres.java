package dev.inbox.benchmarks.storm;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, from the local {@code initdb} and {@code pg_ctl} (on the
 * PATH or under {@code /usr/lib/postgresql/<version>/bin}), in a temporary directory on a free
 * loopback port, so that a test may crash and restart it without disturbing the shared server.
 * PostgreSQL refuses to run as root: as root the commands run as the {@code postgres} user.
 * {@link #crash()} is an immediate shutdown — no checkpoint, WAL recovery on the next start, as
 * after a power cut. {@link #close()} stops it and deletes its files; every step is bounded.
 */
final class LocalPostgres implements AutoCloseable {

    private static final long STEP_TIMEOUT_SECONDS = 60;

    private final Path dir;
    private final Path bin;
    private final int port;

    private LocalPostgres(Path dir, Path bin, int port) {
        this.dir = dir;
        this.bin = bin;
        this.port = port;
    }

    /** The directory holding {@code initdb} and {@code pg_ctl}, or null when there is none. */
    static Path binaries() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator)) {
                candidates.add(Path.of(entry));
            }
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            versions.sorted(Comparator.reverseOrder()).forEach(v -> candidates.add(v.resolve("bin")));
        } catch (IOException none) {
            // not a Debian layout
        }
        return candidates.stream()
                .filter(dir -> Files.isExecutable(dir.resolve("initdb")) && Files.isExecutable(dir.resolve("pg_ctl")))
                .findFirst()
                .orElse(null);
    }

    /** Creates a cluster and starts it (about 2 s). */
    static LocalPostgres start() throws IOException, InterruptedException {
        Path bin = binaries();
        if (bin == null) {
            throw new IllegalStateException("initdb and pg_ctl are not on the PATH");
        }
        Path dir = Files.createTempDirectory("inbox-local-postgres");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        LocalPostgres server = new LocalPostgres(dir, bin, port);
        try {
            if (isRoot()) {
                run(List.of("chown", "postgres", dir.toString()));
            }
            server.asOwner("initdb", "-D", server.data(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync");
            server.restart();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=2&socketTimeout=5";
    }

    /** Stops at once, as a crash would: no checkpoint; the next start replays the WAL. */
    void crash() throws IOException, InterruptedException {
        asOwner("pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop");
    }

    /** Starts the server (again) and waits until it accepts connections. */
    void restart() throws IOException, InterruptedException {
        asOwner(
                "pg_ctl",
                "-D",
                data(),
                "-l",
                dir.resolve("server.log").toString(),
                "-o",
                "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1",
                "-w",
                "start");
    }

    @Override
    public void close() {
        try {
            if (Files.exists(dir.resolve("data/postmaster.pid"))) {
                asOwner("pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            // deleting the files anyway
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp directory
        }
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    private void asOwner(String binary, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (isRoot()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(binary).toString());
        command.addAll(List.of(args));
        run(command);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out: " + String.join(" ", command));
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
