package dev.inbox.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class AbTableTest {

    private static final String STORE = "MysqlClaimBenchmark.claim_store @1t (ops/s)";
    private static final String RAW = "MysqlClaimBenchmark.claim_raw @1t (ops/s)";

    private final Map<String, List<Double>> a = Map.of(
            STORE, List.of(80.0, 70.0, 90.0),
            RAW, List.of(100.0, 100.0, 100.0));
    private final Map<String, List<Double>> b = Map.of(
            STORE, List.of(95.0, 92.0, 120.0),
            RAW, List.of(100.0, 100.0, 100.0));

    @Test
    void storeOverRaw_isTakenWithinEachRound() {
        assertThat(AbTable.ratios(a, "_store", "_raw"))
                .containsOnlyKeys("MysqlClaimBenchmark.claim_store/_raw @1t (ops/s)")
                .containsValue(List.of(0.8, 0.7, 0.9));
    }

    @Test
    void theTable_endsWithTheRatios_andAVerdictOnlyOutsideTheSpread() {
        String table = AbTable.table(new TreeMap<>(a), new TreeMap<>(b));
        assertThat(table)
                .contains("store / raw, within each round")
                .containsPattern(
                        "claim_store/_raw @1t \\(ops/s\\)\\s+0\\.80\\s+0\\.95\\s+1\\.19  B higher outside the spread")
                .contains("rounds A [0.80, 0.70, 0.90]")
                .contains("rounds B [0.95, 0.92, 1.20]");
    }

    @Test
    void theInbox_isComparedWithItsPeer_roundByRound() {
        Map<String, List<Double>> peers = Map.of(
                "PeerClaimBenchmark.redisClaim_inbox @4t (ops/s)", List.of(90.0, 110.0),
                "PeerClaimBenchmark.redisClaim_springIntegration @4t (ops/s)", List.of(100.0, 100.0));
        assertThat(AbTable.table(new TreeMap<>(peers), new TreeMap<>(peers)))
                .contains("inbox / Spring Integration, within each round")
                .containsPattern("redisClaim_inbox/_springIntegration @4t \\(ops/s\\)\\s+1\\.00\\s+1\\.00")
                .doesNotContain("store / raw");
    }

    @Test
    void aWrittenTable_readsBackToTheSameScores_ratiosLeftOut() {
        List<String> written =
                List.of(AbTable.table(new TreeMap<>(a), new TreeMap<>(b)).split("\n"));
        assertThat(AbTable.fromTable(written, "A")).isEqualTo(a);
        assertThat(AbTable.fromTable(written, "B")).isEqualTo(b);
        Map<String, List<Double>> longName =
                Map.of("PeerClaimBenchmark.redisDuplicate_springIntegration @1t (ops/s)", List.of(7294.0, 7039.0));
        assertThat(AbTable.fromTable(List.of(AbTable.table(longName, longName).split("\n")), "A"))
                .as("a name wider than its column")
                .isEqualTo(longName);
        assertThatThrownBy(() -> AbTable.fromTable(List.of("# nothing"), "B"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no rounds of side B");
    }
}
