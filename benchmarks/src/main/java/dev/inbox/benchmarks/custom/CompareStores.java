package dev.inbox.benchmarks.custom;

import dev.inbox.benchmarks.report.Spread;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * A store of your own beside the built-in stores, in one command: the five claim benchmarks
 * ({@code claim}, {@code duplicate}, {@code contended}, {@code claimComplete}, {@code claimAll100};
 * see {@code StoreClaimBenchmark}) run on every store in each of several rounds, the stores one
 * after the other within a round, so that whatever the machine does during the run falls on all of
 * them alike. It prints, per operation and thread count, each store's median over the rounds, every
 * round's score (the spread), your store's median divided by each other's, and a verdict only when
 * the two sets of rounds do not overlap.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar:my-store.jar:my-store-deps/* \
 *     dev.inbox.benchmarks.custom.CompareStores com.example.BenchMyStore \
 *     [--with caffeine,postgres,redis] [--rounds 5] [--threads 1,4] [--out my-store.txt]
 * }</pre>
 *
 * <p>Your store is named by its {@code Supplier<InboxStore>} class ({@link CustomStores}). {@code
 * --with} takes {@code caffeine} (the embedded store: the in-process ceiling), {@code postgres},
 * {@code mysql}, {@code redis} and {@code dynamodb} (the built-in stores, on the servers their
 * benchmark classes name), and other supplier classes. Each round runs each benchmark in a JVM of its
 * own ({@code --forks 1}) for {@code --warmup-ms} (2000) then {@code --iterations} (2) ×
 * {@code --iteration-ms} (3000); with the defaults a round takes about 9 s per store and operation.
 */
public final class CompareStores {

    static final List<String> OPERATIONS = List.of("claim", "duplicate", "contended", "claimComplete", "claimAll100");

    private static final Map<String, String> BUILT_IN_CLASSES = Map.of(
            "postgres", "PostgresClaimBenchmark",
            "mysql", "MysqlClaimBenchmark",
            "redis", "RedisClaimBenchmark",
            "dynamodb", "DynamoDbClaimBenchmark");

    private static final String PACKAGE = "dev.inbox.benchmarks.jmh.";

    private CompareStores() {}

    /** What one command asks for, checked before any benchmark runs. */
    record Settings(
            String yours,
            List<String> others,
            int rounds,
            List<Integer> threads,
            int forks,
            int warmupMs,
            int iterations,
            int iterationMs,
            Path out) {

        Settings {
            if (!CustomStores.isClassName(yours)) {
                throw new IllegalArgumentException("the first argument is your store's Supplier<InboxStore> class,"
                        + " by its full name (com.example.BenchMyStore); got '" + yours + "'");
            }
            for (String other : others) {
                if (!other.equals("caffeine")
                        && !BUILT_IN_CLASSES.containsKey(other)
                        && !CustomStores.isClassName(other)) {
                    throw new IllegalArgumentException("--with takes caffeine, postgres, mysql, redis, dynamodb or a"
                            + " Supplier<InboxStore> class name; got '" + other + "'");
                }
                if (other.equals(yours)) {
                    throw new IllegalArgumentException("--with names your own store " + yours + " again");
                }
            }
            if (rounds < 2) {
                throw new IllegalArgumentException(
                        "--rounds must be at least 2 (a spread needs rounds); got " + rounds);
            }
            if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
                throw new IllegalArgumentException("--threads takes thread counts of 1 or more; got " + threads);
            }
            if (forks < 0 || warmupMs < 0 || iterations < 1 || iterationMs < 1) {
                throw new IllegalArgumentException(
                        "--forks and --warmup-ms must be 0 or more, --iterations and" + " --iteration-ms 1 or more");
            }
            others = List.copyOf(others);
            threads = List.copyOf(threads);
        }

        /** The rows of the table: your store first, then the others in the order given. */
        List<String> stores() {
            List<String> stores = new ArrayList<>();
            stores.add(yours);
            stores.addAll(others);
            return stores;
        }
    }

    public static void main(String[] args) throws IOException, RunnerException {
        Settings settings = parse(args);
        String table = run(settings, System.err);
        String stamped = "# CompareStores " + String.join(" ", args) + "\n# finished "
                + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "; each round: " + settings.forks()
                + " fork(s), warm-up " + settings.warmupMs() + " ms, " + settings.iterations() + " × "
                + settings.iterationMs() + " ms\n" + table;
        System.out.print(stamped);
        if (settings.out() != null) {
            Files.writeString(settings.out(), stamped, StandardCharsets.UTF_8);
        }
    }

    static Settings parse(String[] args) {
        if (args.length == 0 || args[0].startsWith("--")) {
            throw new IllegalArgumentException("usage: CompareStores <your Supplier<InboxStore> class> [--with"
                    + " caffeine,postgres,redis] [--rounds 5] [--threads 1] [--out FILE] [--forks 1]"
                    + " [--warmup-ms 2000] [--iterations 2] [--iteration-ms 3000]");
        }
        List<String> others = List.of("caffeine", "postgres", "redis");
        int rounds = 5;
        List<Integer> threads = List.of(1);
        int forks = 1;
        int warmupMs = 2000;
        int iterations = 2;
        int iterationMs = 3000;
        Path out = null;
        for (int i = 1; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--with" -> others = value.isBlank() ? List.of() : List.of(value.split(","));
                case "--rounds" -> rounds = number(args[i], value);
                case "--threads" ->
                    threads = java.util.Arrays.stream(value.split(","))
                            .map(t -> number("--threads", t))
                            .toList();
                case "--forks" -> forks = number(args[i], value);
                case "--warmup-ms" -> warmupMs = number(args[i], value);
                case "--iterations" -> iterations = number(args[i], value);
                case "--iteration-ms" -> iterationMs = number(args[i], value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        return new Settings(args[0], others, rounds, threads, forks, warmupMs, iterations, iterationMs, out);
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number; got '" + value + "'", e);
        }
    }

    /**
     * Runs every round and returns the table. Progress goes to {@code progress}, a line per round.
     *
     * @throws IllegalStateException when a benchmark fails (a store that cannot be built or a server
     *     that does not answer): JMH's message names it
     */
    static String run(Settings settings, PrintStream progress) throws RunnerException {
        Map<String, List<Double>> scores = new LinkedHashMap<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (int threads : settings.threads()) {
                progress.printf(Locale.ROOT, "round %d of %d, %d thread(s)%n", round, settings.rounds(), threads);
                for (RunResult result : runRound(settings, threads)) {
                    String store = storeOf(result);
                    String operation = result.getParams()
                            .getBenchmark()
                            .replaceFirst(".*\\.", "")
                            .replace("_store", "");
                    scores.computeIfAbsent(key(operation, threads, store), k -> new ArrayList<>())
                            .add(result.getPrimaryResult().getScore());
                }
            }
        }
        return table(settings, scores);
    }

    private static Collection<RunResult> runRound(Settings settings, int threads) throws RunnerException {
        String operations = "\\.(" + String.join("|", OPERATIONS) + ")_store$";
        List<String> anyStore = new ArrayList<>();
        ChainedOptionsBuilder options = new OptionsBuilder()
                .forks(settings.forks())
                .warmupIterations(settings.warmupMs() == 0 ? 0 : 1)
                .warmupTime(TimeValue.milliseconds(Math.max(1, settings.warmupMs())))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.milliseconds(settings.iterationMs()))
                .threads(threads)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        for (String store : settings.stores()) {
            String builtIn = BUILT_IN_CLASSES.get(store);
            if (builtIn != null) {
                options.include("^" + PACKAGE.replace(".", "\\.") + builtIn + operations);
            } else {
                anyStore.add(store);
            }
        }
        if (!anyStore.isEmpty()) {
            options.include("^" + PACKAGE.replace(".", "\\.") + "AnyStoreClaimBenchmark" + operations)
                    .param("store", anyStore.toArray(String[]::new));
        }
        try {
            return new Runner(options.build()).run();
        } catch (RunnerException e) {
            throw new IllegalStateException(
                    "a benchmark failed (" + e.getMessage() + "): check that each store in"
                            + " --with can be built here — postgres, mysql, redis and dynamodb need their servers (see"
                            + " benchmarks/README.md); leave a store out with --with",
                    e);
        }
    }

    private static String storeOf(RunResult result) {
        String benchmark = result.getParams().getBenchmark();
        String store = result.getParams().getParam("store");
        if (benchmark.contains(".AnyStoreClaimBenchmark.")) {
            return Objects.requireNonNull(store, "AnyStoreClaimBenchmark without a store parameter");
        }
        for (Map.Entry<String, String> builtIn : BUILT_IN_CLASSES.entrySet()) {
            if (benchmark.contains("." + builtIn.getValue() + ".")) {
                return builtIn.getKey();
            }
        }
        throw new IllegalStateException("a result of a benchmark this run did not ask for: " + benchmark);
    }

    private static String key(String operation, int threads, String store) {
        return operation + "\t" + threads + "\t" + store;
    }

    /** The table of {@code scores} (keyed operation, threads, store; each round's ops/s in order). */
    static String table(Settings settings, Map<String, List<Double>> scores) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "%-14s %7s  %-40s %14s  %-11s  %s%n",
                "operation",
                "threads",
                "store",
                "median ops/s",
                "yours / it",
                "verdict; every round's ops/s"));
        for (String operation : OPERATIONS) {
            for (int threads : settings.threads()) {
                List<Double> yours = scores.get(key(operation, threads, settings.yours()));
                if (yours == null) {
                    throw new IllegalStateException(
                            "no score of your store for " + operation + " at " + threads + " thread(s)");
                }
                for (String store : settings.stores()) {
                    List<Double> theirs = scores.get(key(operation, threads, store));
                    if (theirs == null) {
                        throw new IllegalStateException(
                                "no score of " + store + " for " + operation + " at " + threads + " thread(s)");
                    }
                    boolean isYours = store.equals(settings.yours());
                    String ratio = isYours
                            ? "-"
                            : String.format(Locale.ROOT, "%.2f", Spread.median(yours) / Spread.median(theirs));
                    String verdict = isYours
                            ? "yours"
                            : Spread.verdict(
                                    yours, theirs, "yours higher outside the spread", "yours lower outside the spread");
                    out.append(String.format(
                            Locale.ROOT,
                            "%-14s %7d  %-40s %,14.0f  %-11s  %s; %s%n",
                            operation,
                            threads,
                            store,
                            Spread.median(theirs),
                            ratio,
                            verdict,
                            theirs.stream()
                                    .map(score -> String.format(Locale.ROOT, "%,.0f", score))
                                    .toList()));
                }
            }
        }
        return out.toString();
    }
}
