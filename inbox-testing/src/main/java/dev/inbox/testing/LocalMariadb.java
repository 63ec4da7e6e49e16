package dev.inbox.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB (or MySQL) server of the test's own, from the local {@code mariadb-install-db} and
 * {@code mariadbd}, ignoring the machine's option files. {@link #crash()} is SIGKILL: InnoDB
 * recovers from its redo log on the next start.
 */
public final class LocalMariadb extends LocalServer {

    private Process server;

    private LocalMariadb() throws IOException {
        super("inbox-local-mariadb");
    }

    private static boolean available() {
        return Processes.onPath("mariadb-install-db")
                && (Processes.onPath("mariadbd")
                        || java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/sbin/mariadbd")));
    }

    /** Creates a data directory and starts the server on it (about 3 s). */
    public static LocalMariadb start() throws IOException, InterruptedException {
        if (!available()) {
            throw new NoTestServerException(
                    "This test starts and crashes a MariaDB server of its own: mariadb-install-db and"
                            + " mariadbd are not installed. Install MariaDB's server (Debian: apt-get"
                            + " install mariadb-server).",
                    null);
        }
        LocalMariadb db = new LocalMariadb();
        try {
            List<String> install = new ArrayList<>(List.of(
                    "mariadb-install-db",
                    "--no-defaults",
                    "--datadir=" + db.dir.resolve("data"),
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db"));
            if (Processes.isRoot()) {
                install.add("--user=root");
            }
            run(install);
            db.restart();
            run(List.of(
                    "mariadb",
                    "--no-defaults",
                    "-h127.0.0.1",
                    "-P" + db.port,
                    "-uroot",
                    "-e",
                    "CREATE DATABASE IF NOT EXISTS inbox"));
            return db;
        } catch (IOException | InterruptedException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    @Override
    public String jdbcUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/inbox?user=root&password=&sslMode=DISABLED"
                + "&allowPublicKeyRetrieval=true&connectTimeout=2000&socketTimeout=5000";
    }

    @Override
    public void crash() throws InterruptedException {
        server.destroyForcibly(); // SIGKILL
        if (!server.waitFor(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("mariadbd did not die");
        }
    }

    @Override
    public void restart() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Processes.onPath("mariadbd") ? "mariadbd" : "/usr/sbin/mariadbd",
                "--no-defaults",
                "--datadir=" + dir.resolve("data"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mariadb.sock"),
                "--pid-file=" + dir.resolve("mariadb.pid"),
                "--log-error=" + dir.resolve("error.log"),
                "--innodb-buffer-pool-size=64M"));
        if (Processes.isRoot()) {
            command.add("--user=root");
        }
        server = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
        while (true) {
            try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("mariadbd did not start on port " + port + "; see " + dir);
                }
                Thread.sleep(50);
            }
        }
    }

    @Override
    void stop() throws InterruptedException {
        if (server != null && server.isAlive()) {
            server.destroy();
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                crash();
            }
        }
    }
}
