package dev.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {

    /** One id in 64 started with '-' and failed the broker's start, which the tests then reported as no broker. */
    @Test
    void clusterIds_neverStartWithADash_andDecodeToSixteenBytes() {
        for (int i = 0; i < 5_000; i++) {
            String id = KafkaBroker.clusterId();
            assertThat(id).doesNotStartWith("-");
            assertThat(Base64.getUrlDecoder().decode(id)).hasSize(16);
        }
    }
}
