package dev.inbox.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.spi.ClaimStatus;
import org.junit.jupiter.api.Test;

/**
 * The any-store claim benchmark's set-up and calls, run as JMH runs them (set-up, benchmark
 * methods, tear-down) without JMH's timing: each store it can be given is built and answers.
 */
class AnyStoreClaimBenchmarkTest {

    @Test
    void theEmbeddedStore_andAStoreOfYourOwn_answerEachBenchmarkCall() {
        for (String store : new String[] {"caffeine", "dev.inbox.benchmarks.storm.OwnStores$Correct"}) {
            AnyStoreClaimBenchmark benchmark = new AnyStoreClaimBenchmark();
            benchmark.store = store;
            benchmark.setUp();
            try {
                assertThat(benchmark.claim_store().status()).as(store).isEqualTo(ClaimStatus.ACQUIRED);
                assertThat(benchmark.duplicate_store().status()).as(store).isEqualTo(ClaimStatus.DUPLICATE);
                assertThat(benchmark.claimComplete_store()).as(store).isTrue();
                assertThat(benchmark.claimAll100_store())
                        .as(store)
                        .hasSize(100)
                        .allSatisfy(claim -> assertThat(claim.status()).isEqualTo(ClaimStatus.ACQUIRED));
                assertThat(benchmark.contended_store().status()).as(store).isEqualTo(ClaimStatus.ACQUIRED);
                assertThat(benchmark.contended_store().status()).as(store).isEqualTo(ClaimStatus.BUSY);
            } finally {
                benchmark.tearDown();
            }
        }
    }

    @Test
    void anUnknownName_failsTheSetUp_namingWhatItTakes() {
        AnyStoreClaimBenchmark benchmark = new AnyStoreClaimBenchmark();
        benchmark.store = "postgres";
        assertThatThrownBy(benchmark::setUp)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown store 'postgres'")
                .hasMessageContaining("PostgresClaimBenchmark");
    }
}
