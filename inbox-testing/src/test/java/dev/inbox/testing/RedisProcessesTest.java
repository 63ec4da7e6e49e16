package dev.inbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** How {@link RedisProcesses} copes with ports taken between choosing and binding them. */
@Tag("extended") // CI and -Pextended; the default build starts a Cluster for RedisInboxStoreTest$ClusterKit anyway
class RedisProcessesTest {

    @Test
    void clusterPorts_neverGiveOneNodeThePortOrBusPortOfAnother() throws Exception {
        for (int round = 0; round < 20; round++) {
            List<Integer> ports = RedisProcesses.clusterPorts(6);
            Set<Integer> bound = new HashSet<>();
            for (int port : ports) {
                assertThat(bound.add(port)).as("port %s in %s", port, ports).isTrue();
                assertThat(bound.add(port + 10_000))
                        .as("bus port of %s in %s", port, ports)
                        .isTrue();
            }
            assertThat(ports).hasSize(6);
        }
    }

    @Test
    void aServerWhosePortWasTakenMeanwhile_isStartedAgainOnAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int free = Processes.freePort();
            int[] offered = {taken.getLocalPort(), free};
            int[] next = {0};
            try (RedisProcesses server = RedisProcesses.standalone(false, () -> offered[next[0]++])) {
                assertThat(server.port()).isEqualTo(free);
                assertThat(server.cli(free, "ping")).contains("PONG");
            }
        }
    }

    @Test
    void aServerThatCannotBindOnAnyAttempt_failsWithItsLog() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> RedisProcesses.standalone(false, () -> port))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("redis-server on port " + port + " exited while starting")
                    .hasMessageContaining("Address already in use");
        }
    }

    /**
     * Right after start every node already sees every primary's replica: a test asks any live node
     * ({@link RedisProcesses#replicaOf(int)}, {@link RedisProcesses#primaryOfSlot(int)}), and gossip
     * that has not reached it yet made {@code replicaOf} answer "no replica".
     */
    @Test
    void aReplicatedCluster_isStartedWithEveryNodeSeeingEveryReplica() throws Exception {
        try (RedisProcesses cluster = RedisProcesses.replicatedCluster()) {
            for (int port : cluster.ports()) {
                String nodes = cluster.cli(port, "cluster", "nodes");
                assertThat(nodes.lines().filter(line -> line.contains("slave")))
                        .as("replicas node %s sees:%n%s", port, nodes)
                        .hasSize(3);
            }
            for (int slot : new int[] {0, 8_000, 16_383}) {
                int primary = cluster.primaryOfSlot(slot);
                assertThat(cluster.cli(cluster.replicaOf(primary), "role"))
                        .startsWith("slave")
                        .contains(Integer.toString(primary));
            }
        }
    }
}
