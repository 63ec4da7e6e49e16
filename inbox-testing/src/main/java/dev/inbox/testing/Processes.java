package dev.inbox.testing;

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

/** Bounded process and file helpers shared by the launchers of local servers. */
final class Processes {

    private Processes() {}

    /** Runs a command to its end within {@code timeoutSeconds}; returns its output, or throws with it. */
    static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("timed out after " + timeoutSeconds + " s: " + String.join(" ", command));
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    /** Sends a signal ({@code -STOP}, {@code -KILL}, …) to a process. */
    static void signal(Process process, String signal) throws IOException, InterruptedException {
        run(List.of("kill", signal, Long.toString(process.pid())), 5);
    }

    /** Asks a process to stop, then kills it if it has not within five seconds. */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when {@code binary} is an executable on the PATH. */
    static boolean onPath(String binary) {
        String path = System.getenv("PATH");
        return path != null
                && Stream.of(path.split(File.pathSeparator)).anyMatch(p -> Files.isExecutable(Path.of(p, binary)));
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** A loopback port that nothing listens on right now. */
    static int freePort() throws IOException {
        return freePorts(1)[0];
    }

    /**
     * {@code count} distinct free loopback ports, all held open while they are chosen: ports
     * chosen one after another may come back the same once the first is closed (a Kafka broker
     * then refused its listener and controller on one port).
     */
    static int[] freePorts(int count) throws IOException {
        ServerSocket[] probes = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                probes[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = probes[i].getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket probe : probes) {
                if (probe != null) {
                    probe.close();
                }
            }
        }
    }

    /** Deletes a directory and everything in it, as far as it can (temporary files). */
    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temporary directory
        }
    }
}
