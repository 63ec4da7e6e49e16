package dev.inbox.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Reads every JMH JSON file in {@code benchmarks/results/}, pairs each {@code <operation>_store}
 * benchmark with its {@code <operation>_raw} baseline from the same file, and rewrites the results
 * table of {@code benchmarks/README.md} (between its {@code results:start} and {@code results:end}
 * markers) and the chart {@code benchmarks/results/chart.svg}.
 *
 * <pre>{@code
 * ./mvnw -q -pl benchmarks -am compile exec:java -Dexec.mainClass=dev.inbox.benchmarks.report.ResultsReport
 * }</pre>
 */
public final class ResultsReport {

    private static final String START = "<!-- results:start -->";
    private static final String END = "<!-- results:end -->";

    private ResultsReport() {}

    /**
     * One store/raw pair of one operation at one thread count: throughput (or single-shot time),
     * and, when a sample-mode run of the same operation exists, latency percentiles.
     */
    record Row(
            String file,
            String benchmarkClass,
            String operation,
            int threads,
            Score store,
            Score raw,
            @Nullable Latency storeLatency,
            @Nullable Latency rawLatency) {
        double ratio() {
            return raw.mode.equals("ss") ? raw.score / store.score : store.score / raw.score;
        }

        /**
         * Whether JMH's error bars (its 99.9 % confidence intervals) of the two sides are apart: a
         * difference is reported only when they do not overlap. One run's bars, not rounds'.
         */
        String verdict() {
            if (Double.isNaN(store.error) || Double.isNaN(raw.error)) {
                return "no error bar";
            }
            boolean higher = store.score - store.error > raw.score + raw.error;
            boolean lower = store.score + store.error < raw.score - raw.error;
            boolean time = raw.mode.equals("ss");
            if (higher || lower) {
                return (higher != time ? "faster" : "slower") + ", outside the error";
            }
            return "within the error";
        }
    }

    /** One JMH score with its error and unit. */
    record Score(double score, double error, String unit, String mode) {
        String text() {
            return String.format(Locale.ROOT, "%,.0f ± %,.0f %s", score, Double.isNaN(error) ? 0 : error, unit);
        }
    }

    /** Percentiles of a sample-mode run. */
    record Latency(double p50, double p99, String unit) {
        String text() {
            return String.format(Locale.ROOT, "%s / %s %s", number(p50), number(p99), unit.replace("/op", ""));
        }

        private static String number(double value) {
            return value >= 100
                    ? String.format(Locale.ROOT, "%,.0f", value)
                    : String.format(Locale.ROOT, "%.1f", value);
        }
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "benchmarks");
        List<Row> rows = read(dir.resolve("results"));
        Path readme = dir.resolve("README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        if (start < 0 || end < start) {
            throw new IllegalStateException(readme + " has no " + START + " … " + END + " section");
        }
        String updated = text.substring(0, start + START.length()) + "\n" + table(rows) + text.substring(end);
        Files.writeString(readme, updated, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("results/chart.svg"), chart(rows), StandardCharsets.UTF_8);
        System.out.println("wrote " + rows.size() + " rows to " + readme + " and results/chart.svg");
    }

    /** What one JMH run says about one side (store or raw) of one operation. */
    private record Measured(
            String file,
            int threads,
            @Nullable Score score,
            @Nullable Latency latency) {}

    static List<Row> read(Path results) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(results, "*.json")) {
            stream.forEach(files::add);
        }
        files.sort(null);
        // class.operation (params) @threads -> side -> what was measured
        Map<String, Map<String, List<Measured>>> byOperation = new TreeMap<>();
        for (Path file : files) {
            JsonNode runs = json.readTree(file.toFile());
            if (!runs.isArray()) {
                continue; // not JMH's: a storm report, the adapter benchmark
            }
            for (JsonNode run : runs) {
                String benchmark = run.get("benchmark").asText();
                String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
                String owner = benchmark.substring(0, benchmark.lastIndexOf('.'));
                int cut = method.lastIndexOf('_');
                if (cut < 0) {
                    continue;
                }
                int threads = run.get("threads").asInt();
                String operation = owner.substring(owner.lastIndexOf('.') + 1) + "." + method.substring(0, cut)
                        + parameters(run.get("params")) + "@" + threads;
                JsonNode metric = run.get("primaryMetric");
                String mode = run.get("mode").asText();
                Measured measured = mode.equals("sample")
                        ? new Measured(
                                file.getFileName().toString(),
                                threads,
                                null,
                                new Latency(
                                        metric.get("scorePercentiles")
                                                .get("50.0")
                                                .asDouble(),
                                        metric.get("scorePercentiles")
                                                .get("99.0")
                                                .asDouble(),
                                        metric.get("scoreUnit").asText()))
                        : new Measured(
                                file.getFileName().toString(),
                                threads,
                                new Score(
                                        metric.get("score").asDouble(),
                                        metric.get("scoreError").asDouble(Double.NaN),
                                        metric.get("scoreUnit").asText(),
                                        mode),
                                null);
                byOperation
                        .computeIfAbsent(operation, k -> new TreeMap<>())
                        .computeIfAbsent(method.substring(cut + 1), k -> new ArrayList<>())
                        .add(measured);
            }
        }
        List<Row> rows = new ArrayList<>();
        byOperation.forEach((operation, sides) -> {
            Measured store = throughput(sides.get("store"));
            Measured raw = throughput(sides.get("raw"));
            if (store == null || raw == null) {
                return;
            }
            int dot = operation.indexOf('.');
            rows.add(new Row(
                    store.file(),
                    operation.substring(0, dot),
                    operation.substring(dot + 1, operation.lastIndexOf('@')),
                    store.threads(),
                    store.score(),
                    raw.score(),
                    latency(sides.get("store")),
                    latency(sides.get("raw"))));
        });
        rows.sort(Comparator.comparing(Row::file).thenComparing(Row::operation).thenComparingInt(Row::threads));
        return rows;
    }

    @Nullable
    private static Measured throughput(@Nullable List<Measured> side) {
        return side == null
                ? null
                : side.stream()
                        .filter(m -> m.score() != null)
                        .reduce((a, b) -> b)
                        .orElse(null);
    }

    @Nullable
    private static Latency latency(@Nullable List<Measured> side) {
        return side == null
                ? null
                : side.stream()
                        .map(Measured::latency)
                        .filter(l -> l != null)
                        .reduce((a, b) -> b)
                        .orElse(null);
    }

    /** " (name=value, …)" for a parameterised benchmark, so each setting gets a row of its own. */
    private static String parameters(JsonNode params) {
        if (params == null || params.isEmpty()) {
            return "";
        }
        List<String> pairs = new ArrayList<>();
        params.fields()
                .forEachRemaining(p -> pairs.add(p.getKey() + "=" + p.getValue().asText()));
        return " (" + String.join(", ", pairs) + ")";
    }

    static String table(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append("| benchmark | operation | threads | store | raw driver | speed, store / raw | verdict"
                + " | store p50 / p99 | raw p50 / p99 |\n");
        out.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Row row : rows) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %s | %s | %.2f | %s | %s | %s |%n",
                    row.benchmarkClass(),
                    row.operation(),
                    row.threads(),
                    row.store().text(),
                    row.raw().text(),
                    row.ratio(),
                    row.verdict(),
                    row.storeLatency() == null ? "–" : row.storeLatency().text(),
                    row.rawLatency() == null ? "–" : row.rawLatency().text()));
        }
        out.append("\n(throughput from `")
                .append(String.join(
                        "`, `", rows.stream().map(Row::file).distinct().toList()))
                .append("`, latency from the `*-latency-*.json` sample-mode runs; a ratio below 1 means the store"
                        + " is slower than the raw statement; the verdict compares the two sides' error bars, JMH's"
                        + " 99.9 % confidence intervals of one run: \"within the error\" is no verdict)\n");
        return out.toString();
    }

    /** A horizontal bar chart of store / raw per row, with 1.0 and 0.9 marked. */
    static String chart(List<Row> rows) {
        int barHeight = 22;
        int left = 330;
        int width = 760;
        int plot = width - left - 60;
        int height = 50 + rows.size() * (barHeight + 6);
        double max = Math.max(1.2, rows.stream().mapToDouble(Row::ratio).max().orElse(1));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\""
                        + " font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"
                        + "<text x=\"10\" y=\"20\" font-size=\"14\">store throughput / raw driver throughput"
                        + " (same run)</text>%n",
                width,
                height));
        for (double mark : new double[] {0.9, 1.0}) {
            double x = left + plot * mark / max;
            svg.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"4\"/>%n"
                            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f</text>%n",
                    x,
                    x,
                    height - 12,
                    mark == 1.0 ? "black" : "gray",
                    x,
                    height - 2,
                    mark));
        }
        int y = 36;
        for (Row row : rows) {
            double w = plot * row.ratio() / max;
            String color = row.ratio() >= 0.9 ? "#4c9a2a" : "#d1495b";
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s ×%d</text>%n"
                            + "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n"
                            + "<text x=\"%.1f\" y=\"%d\">%.2f</text>%n",
                    left - 8,
                    y + 15,
                    row.benchmarkClass().replace("Benchmark", ""),
                    row.operation(),
                    row.threads(),
                    left,
                    y,
                    w,
                    barHeight,
                    color,
                    left + w + 4,
                    y + 15,
                    row.ratio()));
            y += barHeight + 6;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }
}
