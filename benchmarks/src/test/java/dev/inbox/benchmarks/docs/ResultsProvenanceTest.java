package dev.inbox.benchmarks.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every file in {@code benchmarks/results} (and its subdirectories) says where it came from: a
 * {@code PRODUCED-BY*.txt} beside it lists it with its current SHA-256 (the scripts write those:
 * the commit, whether the tree was clean, the command), or, for a text table, its own header names
 * the command ({@code # …}) and the commit it measured. A file without either fails here. (The
 * three files that record code since changed, which no run can produce again, are listed with what
 * git says of them in {@code PRODUCED-BY-before-stamps.txt}.)
 */
class ResultsProvenanceTest {

    private static final Path RESULTS = ReadmeSnippetsTest.ROOT.resolve("benchmarks/results");

    /** Drawn from the other files by {@code ResultsReport}: it measures nothing itself. */
    private static final Set<String> DRAWN = Set.of("chart.svg");

    private static final Pattern LISTED = Pattern.compile("(?m)^([0-9a-f]{64})  (\\S.*)$");

    /** A header line naming the measured commit: ab-jmh's "# A: <rev>", a script's "… at <rev>", "commit: <rev>". */
    private static final Pattern COMMIT_HEADER =
            Pattern.compile("(?m)^#.*(?:\\bA: |\\bat |commit:? )[0-9a-f]{7,40}\\b");

    @Test
    void everyResultsFileSaysWhereItCameFrom() throws IOException {
        List<String> unstamped = new ArrayList<>();
        try (Stream<Path> dirs =
                Stream.concat(Stream.of(RESULTS), Files.list(RESULTS).filter(Files::isDirectory))) {
            for (Path dir : dirs.toList()) {
                Map<String, Set<String>> listed = listed(dir);
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                        String name = file.getFileName().toString();
                        String where = RESULTS.relativize(file).toString();
                        if (name.startsWith("PRODUCED-BY") || DRAWN.contains(name)) {
                            continue;
                        }
                        boolean stamped = listed.getOrDefault(name, Set.of()).contains(sha256(file))
                                || (name.endsWith(".txt") && header(file));
                        if (!stamped) {
                            unstamped.add(where);
                        }
                    }
                }
            }
        }
        assertThat(unstamped)
                .as("results that no PRODUCED-BY file lists with their current hash and whose header names no"
                        + " commit: write them with a script that calls produced_by_start/produced_by_write"
                        + " (benchmarks/produced-by.sh)")
                .isEmpty();
    }

    /** File name → the hashes the PRODUCED-BY files of {@code dir} list for it. */
    private static Map<String, Set<String>> listed(Path dir) throws IOException {
        Map<String, Set<String>> listed = new HashMap<>();
        try (Stream<Path> stamps = Files.list(dir)) {
            for (Path stamp : stamps.filter(p -> p.getFileName().toString().startsWith("PRODUCED-BY"))
                    .toList()) {
                Matcher entry = LISTED.matcher(Files.readString(stamp, StandardCharsets.UTF_8));
                while (entry.find()) {
                    listed.computeIfAbsent(entry.group(2).strip(), k -> new HashSet<>())
                            .add(entry.group(1));
                }
            }
        }
        return listed;
    }

    /** A text table whose first line is its command and whose header names the commit measured. */
    private static boolean header(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String head = text.substring(0, Math.min(text.length(), 1000));
        return head.startsWith("# ") && COMMIT_HEADER.matcher(head).find();
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
