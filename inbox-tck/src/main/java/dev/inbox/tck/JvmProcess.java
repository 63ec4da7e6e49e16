package dev.inbox.tck;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class run in a JVM of its own, on the test's own class path: a consumer the test can
 * really kill ({@code SIGKILL}: no shutdown hook, no rollback sent, the socket closed by the OS) or
 * freeze ({@code SIGSTOP}: the process and its connections stay, nothing more is sent). Suspending
 * needs a Unix {@code kill} command. {@link #close()} kills the process and waits for it, at most 10 s.
 */
public final class JvmProcess implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> output = new ArrayList<>();

    private JvmProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readOutput, "jvm-process-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM with this JVM's class path, its
     * standard output and error merged and read by {@link #awaitLine(String, Duration)}.
     *
     * @throws IllegalArgumentException if {@code mainClass} is null
     * @throws IllegalStateException if the JVM could not be started
     */
    public static JvmProcess start(Class<?> mainClass, String... args) {
        if (mainClass == null) {
            throw new IllegalArgumentException("mainClass must not be null");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        try {
            return new JvmProcess(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new IllegalStateException("could not start a JVM for " + mainClass.getName() + ": " + e, e);
        }
    }

    /**
     * Waits for a line of output that starts with {@code prefix} and returns it.
     *
     * @throws AssertionError with the process's output if no such line came within {@code timeout}
     *     or the process ended first
     */
    public String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                String line = left <= 0 ? null : lines.poll(Math.min(left, 100_000_000L), TimeUnit.NANOSECONDS);
                if (line != null && line.startsWith(prefix)) {
                    return line;
                }
                if (line == null && (left <= 0 || (!process.isAlive() && lines.isEmpty()))) {
                    throw new AssertionError("pid " + process.pid() + " printed no line starting with '" + prefix
                            + "' within " + timeout + (process.isAlive() ? "" : " (it exited)") + "; its output:\n"
                            + String.join("\n", output()));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Freezes the process ({@code SIGSTOP}): its connections stay open and silent. */
    public void suspend() {
        signal("-STOP");
    }

    /** Lets a suspended process run again ({@code SIGCONT}). */
    public void resume() {
        signal("-CONT");
    }

    /** Kills the process ({@code SIGKILL}, also when suspended) and waits for it to end. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError("pid " + process.pid() + " still runs 10 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** Everything the process printed so far. */
    public synchronized List<String> output() {
        return List.copyOf(output);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new AssertionError("kill " + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new AssertionError("no 'kill' command to send " + signal + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private void readOutput() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                synchronized (this) {
                    output.add(line);
                }
                lines.add(line);
            }
        } catch (IOException e) {
            // the process is gone
        }
    }
}
