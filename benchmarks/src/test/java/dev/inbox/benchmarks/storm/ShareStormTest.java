package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.testing.KafkaBroker;
import dev.inbox.testing.TestServers;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The share-group storm with members as processes, small: 600 events (a fifth published twice)
 * through three member JVMs, five of them SIGKILLed mid-work and replaced, on the tests' broker
 * and the local PostgreSQL.
 */
@Timeout(300)
@Tag("extended") // CI and -Pextended: a dozen JVM starts and group joins
class ShareStormTest {

    private static Map<String, Object> storm(String mode) throws Exception {
        Map<String, Object> result = ShareStorm.run(
                "--mode", mode,
                "--events", "600",
                "--members", "3",
                "--kills", "5",
                "--duplicate-rate", "0.2",
                "--work-ms", "40",
                "--bootstrap", KafkaBroker.bootstrap(),
                "--jdbc-url", TestServers.postgres());
        System.out.println(result); // in the class's -output.txt report
        return result;
    }

    @Test
    void transactionalMode_appliesEachEventOnce_throughMembersKilledMidWork() throws Exception {
        Map<String, Object> result = storm("transactional");

        assertThat(result.get("verdict")).asString().startsWith("EXACTLY-ONCE");
        assertThat(result)
                .containsEntry("passed", true)
                .containsEntry("appliedOnce", 600L)
                .containsEntry("extraApplications", 0L)
                .containsEntry("neverApplied", 0L)
                .containsEntry("membersStarted", 8);
    }

    /**
     * Lease mode writes the ledger row before the claim is completed: a member killed between the
     * two leaves a row without a completed claim, and the record's next member applies it again
     * once the lease ends. The same check that finds no extra row in transactional mode finds them
     * here, each charged to a killed member.
     */
    @Test
    void leaseMode_appliesAgainOnlyWhatAKilledMemberApplied() throws Exception {
        Map<String, Object> result = storm("lease");

        assertThat(result.get("verdict")).asString().startsWith("AT-LEAST-ONCE");
        assertThat(result)
                .containsEntry("passed", true)
                .containsEntry("unexplainedExtraApplications", 0L)
                .containsEntry("neverApplied", 0L);
        assertThat((Long) result.get("extraApplications")).isPositive();
    }

    @Test
    void badOptions_areRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> ShareStorm.run("--mode", "exactly"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--mode must be transactional or lease");
        assertThatThrownBy(() -> ShareStorm.run("--members", "0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--members must be at least 1");
        assertThatThrownBy(() -> ShareStorm.run("--duplicate-rate", "2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--duplicate-rate must be between 0 and 1");
    }
}
