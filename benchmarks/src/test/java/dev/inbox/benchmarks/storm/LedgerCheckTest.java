package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LedgerCheckTest {

    /** Processes 1 and 2 were killed; 3 and 4 still run. */
    private final LedgerCheck check = new LedgerCheck(3);

    private Map<String, Object> counts() {
        Map<String, Object> out = new LinkedHashMap<>();
        check.into(out);
        return out;
    }

    @Test
    void anExtraRowAfterAKilledProcess_isExplained_andPassesLeaseModeOnly() {
        check.add("a", List.of(3));
        check.add("b", List.of(1, 3));

        assertThat(counts())
                .containsEntry("appliedOnce", 1L)
                .containsEntry("extraApplications", 1L)
                .containsEntry("unexplainedExtraApplications", 0L)
                .containsEntry("neverApplied", 0L);
        assertThat(check.passed(false)).isTrue();
        assertThat(check.passed(true))
                .as("transactional mode allows no extra row")
                .isFalse();
    }

    @Test
    void anExtraRowAfterASurvivor_orBySameProcessAgain_isUnexplained() {
        check.add("by a survivor", List.of(3, 4));
        check.add("by one killed process twice", List.of(2, 2));

        assertThat(counts()).containsEntry("unexplainedExtraApplications", 2L);
        assertThat(check.passed(false)).isFalse();
        assertThat(check.examples()).hasSize(2);
    }

    @Test
    void anEventWithoutARow_isNeverApplied_andFailsBothModes() {
        check.add("lost", List.of());

        assertThat(counts()).containsEntry("neverApplied", 1L);
        assertThat(check.passed(false)).isFalse();
        assertThat(check.passed(true)).isFalse();
        assertThat(check.examples()).containsExactly("lost has no ledger row");
    }
}
