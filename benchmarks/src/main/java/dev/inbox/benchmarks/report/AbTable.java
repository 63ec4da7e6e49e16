package dev.inbox.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *
 * <p>Where a benchmark has a {@code _store} and a {@code _raw} method (the store beside its raw
 * driver), or an {@code _inbox} and a {@code _springIntegration} one (the inbox beside a peer), the
 * table ends with their ratio computed within each round — both ran in the same JVM minutes apart
 * — with its median per side, every round's ratio and a verdict on the ratios. {@code
 * --from <file>} prints the table again, ratios included, from the rounds a table already written
 * lists (for files written before the ratios were added).
 */
public final class AbTable {

    /** A benchmark's row of a written table: its name (which ends with its unit) before its two medians. */
    private static final Pattern ROW = Pattern.compile("(\\S.*?\\))\\s+[0-9][0-9,.]*\\s+[0-9][0-9,.]*\\s");

    /** A rounds line of a written table: its side and its scores. */
    private static final Pattern ROUNDS = Pattern.compile("\\s+rounds ([AB]) \\[(.*)]");

    /** The pairs compared within each round: ours, theirs, and the heading of their section. */
    private static final List<List<String>> PAIRS = List.of(
            List.of("_store", "_raw", "store / raw, within each round"),
            List.of("_inbox", "_springIntegration", "inbox / Spring Integration, within each round"));

    private AbTable() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 2 && args[0].equals("--from")) {
            List<String> lines = Files.readAllLines(Path.of(args[1]));
            System.out.println(table(fromTable(lines, "A"), fromTable(lines, "B")));
            return;
        }
        if (args.length == 5 && args[0].equals("--param")) {
            Map<String, List<Double>> all = scores(Path.of(args[1]), "a", Integer.parseInt(args[2]));
            System.out.println(table(withParam(all, args[3]), withParam(all, args[4])));
            return;
        }
        if (args.length != 2) {
            throw new IllegalArgumentException(
                    "usage: AbTable <directory> <rounds>, AbTable --param <directory> <rounds> <name>=<A> <name>=<B>,"
                            + " or AbTable --from <table file>");
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

    /** One side's scores as the rounds lines of a table this class wrote list them. */
    static Map<String, List<Double>> fromTable(List<String> lines, String side) {
        Map<String, List<Double>> scores = new TreeMap<>();
        String name = null;
        for (String line : lines) {
            if (line.endsWith(", within each round")) {
                break; // the ratios are computed from the scores above, not read
            }
            Matcher rounds = ROUNDS.matcher(line);
            if (rounds.matches()) {
                if (name == null) {
                    throw new IllegalArgumentException("rounds before any benchmark: " + line);
                }
                if (rounds.group(1).equals(side)) {
                    List<Double> values = new ArrayList<>();
                    for (String value : rounds.group(2).split(",")) {
                        values.add(Double.parseDouble(value.strip()));
                    }
                    scores.put(name, values);
                }
            } else {
                Matcher row = ROW.matcher(line);
                if (!line.startsWith("#") && row.lookingAt()) {
                    name = row.group(1);
                }
            }
        }
        if (scores.isEmpty()) {
            throw new IllegalArgumentException("no rounds of side " + side + " in the table");
        }
        return scores;
    }

    static String table(Map<String, List<Double>> a, Map<String, List<Double>> b) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT, "%-60s %12s %12s %7s  %s%n", "benchmark", "A median", "B median", "B/A", "verdict"));
        rows(out, a, b, "%,12.0f", AbTable::rounded);
        for (List<String> pair : PAIRS) {
            Map<String, List<Double>> ra = ratios(a, pair.get(0), pair.get(1));
            if (!ra.isEmpty()) {
                out.append(String.format(Locale.ROOT, "%n%s%n", pair.get(2)));
            }
            rows(out, ra, ratios(b, pair.get(0), pair.get(1)), "%12.2f", AbTable::twoPlaces);
        }
        return out.toString();
    }

    /** A row per name both sides have: the medians in {@code median}'s format, B/A, the verdict, the rounds. */
    private static void rows(
            StringBuilder out,
            Map<String, List<Double>> a,
            Map<String, List<Double>> b,
            String median,
            Function<List<Double>, List<?>> shown) {
        String row = "%-60s " + median + " " + median + " %7.2f  %s%n";
        a.forEach((name, as) -> {
            List<Double> bs = b.get(name);
            if (bs == null) {
                return;
            }
            double ma = Spread.median(as);
            double mb = Spread.median(bs);
            String verdict = Spread.verdict(bs, as, "B higher outside the spread", "B lower outside the spread");
            out.append(String.format(Locale.ROOT, row, name, ma, mb, mb / ma, verdict));
            out.append(String.format(Locale.ROOT, "%-60s   rounds A %s%n", "", shown.apply(as)));
            out.append(String.format(Locale.ROOT, "%-60s   rounds B %s%n", "", shown.apply(bs)));
        });
    }

    /**
     * For each benchmark {@code X<ours>} with an {@code X<theirs>} beside it: the one's score over
     * the other's, round by round, keyed {@code X<ours>/<theirs>}.
     */
    static Map<String, List<Double>> ratios(Map<String, List<Double>> scores, String ours, String theirs) {
        Map<String, List<Double>> ratios = new TreeMap<>();
        scores.forEach((name, mine) -> {
            List<Double> other = scores.get(name.replace(ours, theirs));
            if (!name.contains(ours) || other == null || other.size() != mine.size()) {
                return;
            }
            List<Double> perRound = new ArrayList<>();
            for (int i = 0; i < mine.size(); i++) {
                perRound.add(mine.get(i) / other.get(i));
            }
            ratios.put(name.replace(ours, ours + "/" + theirs), perRound);
        });
        return ratios;
    }

    private static List<?> twoPlaces(List<Double> ratios) {
        return ratios.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList();
    }

    private static List<?> rounded(List<Double> scores) {
        return scores.stream().map(Math::round).toList();
    }
}
