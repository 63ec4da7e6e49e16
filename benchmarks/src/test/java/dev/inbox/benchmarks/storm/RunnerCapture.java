package dev.inbox.benchmarks.storm;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the storm runner in this JVM and keeps what it printed, for tests. */
final class RunnerCapture {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** {@link StormRunner#run} with {@code args}; its exit code. */
    int run(String... args) throws Exception {
        return StormRunner.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** What the runner printed to standard output: the report. */
    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** What the runner printed to standard error: progress and errors. */
    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
