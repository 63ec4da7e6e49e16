package dev.inbox.benchmarks.storm;

import dev.inbox.InboxStore;
import dev.inbox.caffeine.CaffeineInboxStore;
import java.io.PrintStream;
import java.time.Duration;

/**
 * The project's main job: runs a redelivery storm and checks from a ledger that every event was
 * applied exactly once. With no arguments it runs on the embedded in-memory store:
 *
 * <pre>{@code
 * ./mvnw -q -pl benchmarks -am compile exec:java
 * ./mvnw -q -pl benchmarks -am compile exec:java -Dexec.args="--events 100000 --json"
 * }</pre>
 *
 * @see StormConfig#USAGE
 */
public final class StormRunner {

    private StormRunner() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        StormConfig config;
        try {
            config = StormConfig.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                err.println("storm: " + e.getMessage());
            }
            err.println(StormConfig.USAGE);
            return 2;
        }
        try (InboxStore store = open(config)) {
            StormReport report = new Storm(config, store).run(err::println);
            out.println(config.json() ? report.toJson() : report.toText());
            return report.passed() ? 0 : 1;
        } catch (IllegalArgumentException e) {
            err.println("storm: " + e.getMessage());
            return 2;
        }
    }

    private static InboxStore open(StormConfig config) {
        switch (config.store()) {
            case "caffeine":
                // Grace far longer than the run: no record may vanish while redeliveries still come.
                return CaffeineInboxStore.builder()
                        .maximumSize(Math.max(1_000_000L, config.events() * 2L))
                        .grace(Duration.ofHours(1))
                        .build();
            default:
                throw new IllegalArgumentException("unknown store '" + config.store() + "'; this build has: caffeine");
        }
    }
}
