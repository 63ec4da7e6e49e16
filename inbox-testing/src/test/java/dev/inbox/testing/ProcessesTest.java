package dev.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.RepeatedTest;

class ProcessesTest {

    /** The Kafka broker takes its listener and controller ports this way: one port for both is refused. */
    @RepeatedTest(20)
    void portsChosenTogether_areDistinct() throws Exception {
        int[] ports = Processes.freePorts(4);
        assertThat(Arrays.stream(ports).distinct().count())
                .as("distinct ports of %s", Arrays.toString(ports))
                .isEqualTo(4);
    }
}
