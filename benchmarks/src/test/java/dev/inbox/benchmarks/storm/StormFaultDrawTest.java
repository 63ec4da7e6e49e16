package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The storm's faults come from its seed, so a test's assertions about them hold in every run. */
class StormFaultDrawTest {

    private static List<Fault> draws(String... args) {
        Storm storm = new Storm(StormConfig.parse(args));
        List<Fault> faults = new ArrayList<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            for (int event = 0; event < 2_000; event++) {
                faults.add(storm.drawFault(event));
            }
        }
        return faults;
    }

    @Test
    void theSameSeed_drawsTheSameFaults_andAnotherSeedOthers() {
        String[] rates = {"--events", "2000", "--crash-after-work-rate", "0.01", "--fail-rate", "0.05"};
        assertThat(draws(rates)).isEqualTo(draws(rates));
        String[] otherSeed = {
            "--events", "2000", "--crash-after-work-rate", "0.01", "--fail-rate", "0.05", "--seed", "7"
        };
        assertThat(draws(otherSeed)).isNotEqualTo(draws(rates));
    }

    @Test
    void theDraws_followTheConfiguredRates() {
        Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
        draws(
                        "--events",
                        "2000",
                        "--crash-before-work-rate",
                        "0.1",
                        "--crash-after-work-rate",
                        "0.2",
                        "--fail-rate",
                        "0.3")
                .forEach(fault -> counts.merge(fault, 1, Integer::sum));
        // 6,000 draws: each share within four standard deviations of its rate.
        assertThat(counts.get(Fault.CRASH_BEFORE_WORK)).isBetween(520, 680);
        assertThat(counts.get(Fault.CRASH_AFTER_WORK)).isBetween(1_080, 1_320);
        assertThat(counts.get(Fault.FAIL_WORK)).isBetween(1_660, 1_940);
        assertThat(counts.get(Fault.NONE)).isBetween(2_260, 2_540);
    }

    @Test
    void eachAttemptOfAnEvent_drawsAgain() {
        Storm storm = new Storm(StormConfig.parse(new String[] {"--events", "10", "--fail-rate", "0.5"}));
        List<Fault> sameEvent = new ArrayList<>();
        for (int attempt = 0; attempt < 64; attempt++) {
            sameEvent.add(storm.drawFault(3));
        }
        assertThat(sameEvent).contains(Fault.FAIL_WORK, Fault.NONE);
    }
}
