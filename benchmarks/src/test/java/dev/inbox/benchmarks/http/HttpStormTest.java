package dev.inbox.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.testing.TestServers;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP storm, small: the application JVM killed three times mid-request while six clients send
 * 400 keys (a fifth of them twice at once) and retry, on the local PostgreSQL.
 */
@Timeout(240)
@Tag("extended") // CI and -Pextended: four JVM starts a run
class HttpStormTest {

    private static Map<String, Object> storm(String mode, String... more) throws Exception {
        String[] base = {
            "--mode",
            mode,
            "--requests",
            "400",
            "--clients",
            "6",
            "--kills",
            "3",
            "--duplicate-rate",
            "0.2",
            "--work-ms",
            "30",
            "--jdbc-url",
            TestServers.postgres()
        };
        String[] args = new String[base.length + more.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        Map<String, Object> result = HttpStorm.run(args);
        System.out.println(result); // in the class's -output.txt report
        return result;
    }

    @Test
    void transactionalMode_appliesEachRequestOnce_andAnswersEachKeyAlike_throughKills() throws Exception {
        Map<String, Object> result = storm("transactional");

        assertThat(result.get("verdict")).asString().startsWith("EXACTLY-ONCE");
        assertThat(result)
                .containsEntry("passed", true)
                .containsEntry("appliedOnce", 400L)
                .containsEntry("extraApplications", 0L)
                .containsEntry("neverApplied", 0L)
                .containsEntry("answersWithoutEffect", 0L)
                .containsEntry("answersDiffering", 0L)
                .containsEntry("incarnations", 4);
        // The kills cut requests, and every key was answered again as a replay at the end.
        assertThat((Long) result.get("brokenConnections")).isPositive();
        assertThat((Long) result.get("replayedAnswers")).isGreaterThanOrEqualTo(400L);
    }

    /**
     * Lease mode writes the effect before the response is kept, outside any transaction of the
     * claim's: a kill between the two leaves an effect without a kept response, and the retry after
     * the lease applies it again. The ledger check sees those extra applications — the same check
     * that finds none in transactional mode — and explains each by a killed process.
     */
    @Test
    void leaseMode_appliesAgainOnlyWhatAKilledProcessApplied() throws Exception {
        Map<String, Object> result = storm("lease", "--lease-ms", "1000");

        assertThat(result.get("verdict")).asString().startsWith("AT-LEAST-ONCE");
        assertThat(result)
                .containsEntry("passed", true)
                .containsEntry("unexplainedExtraApplications", 0L)
                .containsEntry("neverApplied", 0L)
                .containsEntry("answersDiffering", 0L);
        assertThat((Long) result.get("extraApplications")).isPositive();
    }

    @Test
    void badOptions_areRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> HttpStorm.run("--mode", "exactly"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--mode must be transactional or lease");
        assertThatThrownBy(() -> HttpStorm.run("--requests", "0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--requests must be at least 1");
        assertThatThrownBy(() -> HttpStorm.run("--kills"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected --name value pairs");
    }
}
