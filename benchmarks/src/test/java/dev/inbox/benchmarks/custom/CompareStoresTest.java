package dev.inbox.benchmarks.custom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one command that puts a store of your own beside the built-in ones: it runs every operation on
 * every store in each round through JMH, and its table reports medians, rounds and verdicts from
 * them. No timing is asserted: the run is as short as JMH allows, in this JVM.
 */
class CompareStoresTest {

    private static final String OWN = "dev.inbox.benchmarks.storm.OwnStores$Correct";

    @Test
    void aRunOfTwoRounds_reportsEveryOperationOfYourStoreAndTheEmbeddedOne_withEachRound() throws Exception {
        CompareStores.Settings settings = quick(OWN, "caffeine");
        ByteArrayOutputStream progress = new ByteArrayOutputStream();

        String table = CompareStores.run(settings, new PrintStream(progress, true, StandardCharsets.UTF_8));

        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("round 1 of 2, 1 thread(s)")
                .contains("round 2 of 2, 1 thread(s)");
        List<String> rows = table.lines().skip(1).toList();
        assertThat(rows).hasSize(CompareStores.OPERATIONS.size() * 2);
        for (String operation : CompareStores.OPERATIONS) {
            assertThat(rows)
                    .filteredOn(row -> row.startsWith(operation + " "))
                    .satisfiesExactly(
                            yours -> assertThat(yours).contains(OWN).contains(" yours; ["),
                            caffeine ->
                                    assertThat(caffeine).contains("caffeine").containsPattern("  \\d+\\.\\d\\d  "));
        }
        // two rounds listed on each row: "[a, b]"
        assertThat(rows).allSatisfy(row -> assertThat(row).containsPattern("; \\[[\\d,]+, [\\d,]+\\]$"));
    }

    @Test
    void theTable_givesAVerdictOnlyWhenTheRoundsDoNotOverlap() {
        CompareStores.Settings settings = CompareStores.parse(new String[] {OWN, "--with", "caffeine,redis"});
        Map<String, List<Double>> scores = new LinkedHashMap<>();
        for (String operation : CompareStores.OPERATIONS) {
            scores.put(operation + "\t1\t" + OWN, List.of(100.0, 110.0, 90.0, 105.0, 95.0));
            scores.put(operation + "\t1\tcaffeine", List.of(1000.0, 900.0, 1100.0, 950.0, 1050.0));
            scores.put(operation + "\t1\tredis", List.of(80.0, 120.0, 100.0, 90.0, 110.0));
        }

        String table = CompareStores.table(settings, scores);

        assertThat(table.lines().filter(row -> row.startsWith("claim ")))
                .satisfiesExactly(
                        yours -> assertThat(yours).contains("100  ").contains("yours; [100, 110, 90, 105, 95]"),
                        caffeine -> assertThat(caffeine)
                                .contains("1,000")
                                .contains("0.10")
                                .contains("yours lower outside the spread"),
                        redis -> assertThat(redis).contains("1.00").contains("within the spread"));
    }

    @Test
    void badArguments_areRefusedBeforeAnythingRuns_sayingWhatIsTaken() {
        assertThatThrownBy(() -> CompareStores.parse(new String[0])).hasMessageContaining("usage: CompareStores");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {"postgres"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("your store's Supplier<InboxStore> class");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {OWN, "--with", "oracle"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'oracle'");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {OWN, "--rounds", "1"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rounds must be at least 2");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {OWN, "--threads", "1,0"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--threads");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {OWN, "--rounds"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--rounds needs a value");
        assertThatThrownBy(() -> CompareStores.parse(new String[] {OWN, "--with", OWN}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names your own store");
    }

    @Test
    void aStoreThatCannotBeBuilt_failsTheRun_namingWhatToCheck() {
        CompareStores.Settings settings = quick("dev.inbox.benchmarks.storm.OwnStores$NotASupplier", "");

        assertThatThrownBy(() -> CompareStores.run(settings, new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a benchmark failed")
                .hasMessageContaining("--with");
    }

    /** Two rounds as short as JMH allows, in this JVM: what is checked is the table, not a speed. */
    private static CompareStores.Settings quick(String yours, String with) {
        return CompareStores.parse(new String[] {
            yours,
            "--with",
            with,
            "--rounds",
            "2",
            "--forks",
            "0",
            "--warmup-ms",
            "0",
            "--iterations",
            "1",
            "--iteration-ms",
            "20"
        });
    }
}
