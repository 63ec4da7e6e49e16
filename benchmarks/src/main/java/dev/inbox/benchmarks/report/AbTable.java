package dev.inbox.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table of {@code benchmarks/ab-jmh.sh}: for each benchmark (with its parameters and threads),
 * the median of its scores over the rounds of build A and of build B, every round's score (the
 * spread), B/A of the medians, and a verdict only when the two sets of rounds do not overlap.
 *
 * <pre>{@code
 * java -cp benchmarks.jar dev.inbox.benchmarks.report.AbTable <directory of a-N.json, b-N.json> <rounds>
 * }</pre>
 *
 * <p>With {@code --param <directory> <rounds> name=A name=B} it compares two values of one JMH
 * parameter instead, both measured in each round ({@code a-N.json}) of one build: A is the first
 * value, B the second ({@code benchmarks/param-jmh.sh}).
 */
public final class AbTable {

    private AbTable() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 5 && args[0].equals("--param")) {
            Map<String, List<Double>> all = scores(Path.of(args[1]), "a", Integer.parseInt(args[2]));
            System.out.println(table(withParam(all, args[3]), withParam(all, args[4])));
            return;
        }
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: AbTable <directory> <rounds>, or AbTable --param <directory> <rounds> <name>=<A> <name>=<B>");
        }
        Path dir = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Map<String, List<Double>> a = scores(dir, "a", rounds);
        Map<String, List<Double>> b = scores(dir, "b", rounds);
        System.out.println(table(a, b));
    }

    /** Each benchmark's score in each round of one side, in round order. */
    static Map<String, List<Double>> scores(Path dir, String side, int rounds) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, List<Double>> scores = new TreeMap<>();
        String unit = "";
        for (int r = 1; r <= rounds; r++) {
            for (JsonNode run :
                    json.readTree(dir.resolve(side + "-" + r + ".json").toFile())) {
                String name = run.get("benchmark").asText().replaceFirst(".*\\.jmh\\.", "");
                JsonNode params = run.get("params");
                if (params != null) {
                    name += params.toString();
                }
                name += " @" + run.get("threads").asInt() + "t";
                unit = run.get("primaryMetric").get("scoreUnit").asText();
                scores.computeIfAbsent(name + " (" + unit + ")", k -> new ArrayList<>())
                        .add(run.get("primaryMetric").get("score").asDouble());
            }
        }
        return scores;
    }

    /**
     * The scores of the benchmarks run with {@code param} ({@code name=value}), keyed by their name
     * with that value left out: one side of a comparison of two values of one parameter, measured in
     * the same rounds of one build.
     */
    static Map<String, List<Double>> withParam(Map<String, List<Double>> all, String param) {
        String[] nameValue = param.split("=", 2);
        if (nameValue.length != 2) {
            throw new IllegalArgumentException("a parameter is name=value, not " + param);
        }
        String given = "\"" + nameValue[0] + "\":\"" + nameValue[1] + "\"";
        Map<String, List<Double>> side = new TreeMap<>();
        all.forEach((name, scores) -> {
            if (name.contains(given)) {
                side.put(name.replace(given, "\"" + nameValue[0] + "\":…"), scores);
            }
        });
        return side;
    }

    static String table(Map<String, List<Double>> a, Map<String, List<Double>> b) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT, "%-60s %12s %12s %7s  %s%n", "benchmark", "A median", "B median", "B/A", "verdict"));
        a.forEach((name, as) -> {
            List<Double> bs = b.get(name);
            if (bs == null) {
                return;
            }
            double ma = Spread.median(as);
            double mb = Spread.median(bs);
            String verdict = Spread.verdict(bs, as, "B higher outside the spread", "B lower outside the spread");
            out.append(String.format(Locale.ROOT, "%-60s %,12.0f %,12.0f %7.2f  %s%n", name, ma, mb, mb / ma, verdict));
            out.append(String.format(Locale.ROOT, "%-60s   rounds A %s%n", "", rounded(as)));
            out.append(String.format(Locale.ROOT, "%-60s   rounds B %s%n", "", rounded(bs)));
        });
        return out.toString();
    }

    private static List<Long> rounded(List<Double> scores) {
        return scores.stream().map(Math::round).toList();
    }
}
