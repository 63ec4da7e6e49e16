package dev.inbox.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, from the local {@code initdb} and {@code pg_ctl} (on the
 * PATH or under {@code /usr/lib/postgresql/<version>/bin}), in a temporary directory on a free
 * loopback port, so that a test may crash and restart it without disturbing the shared server.
 * PostgreSQL refuses to run as root: as root the commands run as the {@code postgres} user.
 * {@link #crash()} is an immediate shutdown — no checkpoint, WAL recovery on the next start, as
 * after a power cut.
 */
public final class LocalPostgres extends LocalServer {

    private final Path bin;

    private LocalPostgres(Path bin) throws IOException {
        super("inbox-local-postgres");
        this.bin = bin;
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
    public static LocalPostgres start() throws IOException, InterruptedException {
        Path bin = binaries();
        if (bin == null) {
            throw new NoTestServerException(
                    "This test starts and crashes a PostgreSQL server of its own: initdb and pg_ctl are"
                            + " neither on the PATH nor under /usr/lib/postgresql/<version>/bin. Install"
                            + " PostgreSQL's server binaries (Debian: apt-get install postgresql).",
                    null);
        }
        LocalPostgres server = new LocalPostgres(bin);
        try {
            if (Processes.isRoot()) {
                run(List.of("chown", "postgres", server.dir.toString()));
            }
            server.asOwner("initdb", "-D", server.data(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync");
            server.restart();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=2&socketTimeout=5";
    }

    /** Stops at once, as a crash would: no checkpoint; the next start replays the WAL. */
    @Override
    public void crash() throws IOException, InterruptedException {
        asOwner("pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop");
    }

    @Override
    public void restart() throws IOException, InterruptedException {
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
    void stop() throws IOException, InterruptedException {
        if (Files.exists(dir.resolve("data/postmaster.pid"))) {
            crash();
        }
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    private void asOwner(String binary, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (Processes.isRoot()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(binary).toString());
        command.addAll(List.of(args));
        run(command);
    }
}
