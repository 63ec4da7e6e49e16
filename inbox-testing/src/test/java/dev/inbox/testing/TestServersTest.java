package dev.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The order of resolution: the user's variable, the local default, a container, a failure naming all three. */
class TestServersTest {

    /** A backend whose servers are names: the probe accepts only those in {@code answering}. */
    private static Backend backend(Set<String> answering) {
        return new Backend(
                "Fake",
                "fake",
                "local",
                "fake://host:1",
                "run a fake server locally",
                endpoint -> {
                    if (!answering.contains(endpoint)) {
                        throw new ConnectException("Connection refused");
                    }
                },
                "fake:1",
                1,
                Map.of(),
                List.of(),
                (host, port) -> "container");
    }

    private static TestServers.ContainerPath docker(boolean available, boolean starts) {
        return new TestServers.ContainerPath() {
            @Override
            public boolean available() {
                return available;
            }

            @Override
            public String start(Backend backend) {
                if (!starts) {
                    throw new IllegalStateException("image not found");
                }
                return "container";
            }
        };
    }

    @AfterEach
    void clearSettings() {
        System.clearProperty("inbox.test.fake.url");
        System.clearProperty("inbox.test.servers");
    }

    @Test
    void theConfiguredEndpoint_isUsed_whenItAnswers() {
        System.setProperty("inbox.test.fake.url", "mine");
        assertThat(TestServers.find(backend(Set.of("mine", "local")), docker(true, true)))
                .isEqualTo("mine");
    }

    @Test
    void aConfiguredEndpointThatDoesNotAnswer_fails_ratherThanFallingBackToAnotherServer() {
        System.setProperty("inbox.test.fake.url", "mine");
        assertThatThrownBy(() -> TestServers.find(backend(Set.of("local")), docker(true, true)))
                .isInstanceOf(NoTestServerException.class)
                .hasMessageContaining("INBOX_TEST_FAKE_URL=mine does not answer")
                .hasMessageContaining("Connection refused");
    }

    @Test
    void theLocalDefault_isUsed_whenItAnswers_withoutTouchingDocker() {
        assertThat(TestServers.find(backend(Set.of("local")), docker(false, false)))
                .isEqualTo("local");
    }

    @Test
    void aContainer_isStarted_whenNothingLocalAnswers() {
        assertThat(TestServers.find(backend(Set.of()), docker(true, true))).isEqualTo("container");
    }

    @Test
    void containersForced_skipTheLocalServer_evenWhenItAnswers() {
        System.setProperty("inbox.test.servers", "containers");
        assertThat(TestServers.find(backend(Set.of("local")), docker(true, true)))
                .isEqualTo("container");
    }

    @Test
    void withNothingAtAll_theFailureNamesAllThreeWays() {
        assertThatThrownBy(() -> TestServers.find(backend(Set.of()), docker(false, false)))
                .isInstanceOf(NoTestServerException.class)
                .hasMessageContaining("local does not answer (ConnectException: Connection refused)")
                .hasMessageContaining("no Docker engine answers")
                .hasMessageContaining("(1) set INBOX_TEST_FAKE_URL (for example fake://host:1)")
                .hasMessageContaining("(2) run a fake server locally")
                .hasMessageContaining("(3) run a Docker engine")
                .hasMessageContaining("fake:1")
                .hasMessageContaining("INBOX_TEST_FAKE_IMAGE");
    }

    @Test
    void aContainerThatDoesNotStart_isNamedInTheFailure() {
        assertThatThrownBy(() -> TestServers.find(backend(Set.of()), docker(true, false)))
                .isInstanceOf(NoTestServerException.class)
                .hasMessageContaining("a container from fake:1 did not start")
                .hasMessageContaining("image not found");
    }

    @Test
    void theRedisProbe_speaksRedis_andFailsOnAPortWhereNothingListens() throws Exception {
        Probe.redis(TestServers.redis());
        int dead = Processes.freePort();
        assertThatThrownBy(() -> Probe.redis("redis://127.0.0.1:" + dead)).isInstanceOf(ConnectException.class);
    }
}
