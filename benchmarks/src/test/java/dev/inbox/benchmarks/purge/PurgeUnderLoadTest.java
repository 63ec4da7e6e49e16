package dev.inbox.benchmarks.purge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A small run of the purge-under-load benchmark on each SQL server: the fill's expired half is what
 * the raw {@code DELETE}, the idle purge and the purge under load each remove, in the statements
 * the batch size makes (paced: a rest after each), while the claims ran. (No timing is asserted.)
 */
class PurgeUnderLoadTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mysql"})
    @SuppressWarnings("unchecked")
    void eachPurgeRemovesTheExpiredHalf_inBoundedStatements_whileTheClaimsRun(String store) throws Exception {
        Map<String, Object> report = PurgeUnderLoad.report(
                "--store",
                store,
                "--rows",
                "2000",
                "--threads",
                "2",
                "--warmup-seconds",
                "1",
                "--baseline-seconds",
                "1",
                "--batch",
                "300",
                "--nice-ratio",
                "0.5");
        assertThat(report).containsEntry("expiredRows", 1000).containsEntry("purgeNiceRatio", 0.5);
        assertThat((Map<String, Object>) report.get("rawDelete")).containsEntry("rows", 1000);
        for (String purge : new String[] {"purgeIdle", "purge"}) {
            assertThat((Map<String, Object>) report.get(purge))
                    .as(purge)
                    .containsEntry("rows", 1000L)
                    .containsEntry("statements", 4); // 300, 300, 300, then 100: fewer than a batch ends it
            if (store.equals("mysql")) {
                assertThat((Map<String, Object>) ((Map<String, Object>) report.get(purge)).get("innodbBufferPool"))
                        .as(purge)
                        .containsKeys("diskReads", "readRequests");
            }
        }
        assertThat((long) ((Map<String, Object>) report.get("claimsBefore")).get("claims"))
                .isPositive();
        assertThat((Map<String, Object>) report.get("ratios"))
                .containsKeys(
                        "purgeSecondsOverRawDelete",
                        "idlePurgeSecondsOverRawDelete",
                        "claimP99DuringOverBefore",
                        "claimP50DuringOverBefore");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--rowz", "--store"})
    void anUnknownOptionOrOneWithoutItsValue_isRefusedBeforeAnyConnection(String option) {
        assertThatThrownBy(() -> PurgeUnderLoad.report(option)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PurgeUnderLoad.report("--rowz", "10"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option --rowz");
    }
}
