package dev.inbox.benchmarks.storm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A storm member run as a process: a main class of this class path in a JVM of its own, its output
 * appended to a log file, killed with {@code SIGKILL} — no shutdown hook, no rollback or
 * acknowledgement sent, its sockets closed by the OS — as a crash of a real process is.
 */
public final class MemberJvm {

    private final Process process;

    private MemberJvm(Process process) {
        this.process = process;
    }

    /**
     * Starts {@code main} with {@code args} in a new JVM (256 MB heap, C1 only: quick to start) with
     * this JVM's class path, its output appended to {@code log}.
     *
     * @throws IOException if the JVM could not be started
     */
    public static MemberJvm start(Class<?> main, Path log, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        return new MemberJvm(new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start());
    }

    /** Whether the process still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    /** The exit code of a process that ended. */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * Kills the process with {@code SIGKILL} and waits for it.
     *
     * @throws IllegalStateException if it still runs 10 s later
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("pid " + process.pid() + " still runs 10 s after SIGKILL");
        }
    }
}
