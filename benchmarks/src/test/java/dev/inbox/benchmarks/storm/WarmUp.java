package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A small storm with a run's own settings before the run that matters: class loading and the first
 * connections happen here, so that on a busy machine a fault injected a second into the real run
 * meets events in flight, not a store still connecting.
 */
final class WarmUp {

    private WarmUp() {}

    static void storm(String... args) throws Exception {
        List<String> warmUp = new ArrayList<>(List.of(args));
        warmUp.addAll(List.of("--events", "50", "--json"));
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        assertThat(StormRunner.run(
                        warmUp.toArray(String[]::new),
                        new PrintStream(output, true, StandardCharsets.UTF_8),
                        new PrintStream(output, true, StandardCharsets.UTF_8)))
                .as("the warm-up storm: %s", output)
                .isZero();
    }
}
