package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.tck.FaultProxy;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.Endpoints;
import dev.inbox.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Storms through a {@link FaultProxy} that loses replies, cuts connections and makes the server
 * unreachable for a while, over and over, scheduled by the storm's own traffic so that every kind
 * lands while deliveries are in flight ({@link Chaos}). Transactional mode
 * must stay exactly-once; lease mode must lose nothing, and may apply an event again only where the
 * report says why (a completion that could not be recorded, a lease lost mid-work).
 */
@Timeout(180)
@Tag("extended") // CI and -Pextended: the storm under network faults
class StormFaultTest {

    /** The running test's method name, naming its kept report. */
    private String test;

    @BeforeEach
    void name(TestInfo info) {
        test = info.getTestMethod().orElseThrow().getName();
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs the storm with chaos on {@code proxy}; returns the JSON report after asserting the exit code. */
    private String stormUnderChaos(FaultProxy proxy, String... args) throws Exception {
        return stormUnderChaos(proxy, 800, 2_500, args);
    }

    /**
     * As above, with the chaos scheduled every {@code cutEvery} and {@code outageEvery} replies
     * (a smaller storm, or a store whose requests take fewer replies, needs closer faults).
     */
    private String stormUnderChaos(FaultProxy proxy, long cutEvery, long outageEvery, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--events", "1500", "--event-rate", "1000", "--json"));
        all.addAll(List.of(args)); // a store's own settings win
        WarmUp.storm(args); // through the proxy, before any fault
        int code;
        String injected;
        try (proxy;
                Chaos chaos = new Chaos(proxy, 100, cutEvery, outageEvery)) {
            code = StormRunner.run(
                    all.toArray(String[]::new),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new TeeStream(err, System.err), true, StandardCharsets.UTF_8));
            injected = chaos.injected();
            chaos.assertEveryKindHitTraffic();
        }
        String json = out.toString(StandardCharsets.UTF_8);
        System.err.println("storm under chaos (" + injected + "): " + json);
        StormReports.keep("chaos-" + test, injected, json);
        assertThat(code)
                .as("exit code; injected: %s; report: %s %s", injected, json, err)
                .isZero();
        // Store errors may be 0: Lettuce re-sends what a broken connection lost, and the AWS SDK
        // retries, both safe by rule C5. What matters is the ledger.
        assertThat(json).contains("\"neverApplied\":0").contains("\"passed\":true");
        return json;
    }

    /** Progress lines go to the build log as well, so a slow run shows where it is. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream first;
        private final java.io.OutputStream second;

        TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }

    private static FaultProxy proxyTo(String endpoint) throws java.io.IOException {
        InetSocketAddress server = Endpoints.address(endpoint);
        return FaultProxy.start(server.getHostString(), server.getPort());
    }

    private static String viaProxy(String endpoint, FaultProxy proxy) {
        return Endpoints.via(endpoint, proxy.host(), proxy.port());
    }

    @Test
    void postgresTransactional_underNetworkFaults_appliesEveryEventExactlyOnce() throws Exception {
        FaultProxy proxy = proxyTo(TestServers.postgres());
        String json = stormUnderChaos(
                proxy,
                "--store",
                "postgres",
                "--mode",
                "transactional",
                "--jdbc-url",
                Endpoints.withParameter(viaProxy(TestServers.postgres(), proxy), "socketTimeout", "5"));
        assertThat(json).contains("\"appliedTwice\":0").contains("EXACTLY-ONCE");
    }

    // 10 s: the SQL stores' transactional mode under chaos runs on PostgreSQL in the default build; CI runs MySQL too.
    @Test
    @Tag("extended")
    void mysqlTransactional_underNetworkFaults_appliesEveryEventExactlyOnce() throws Exception {
        FaultProxy proxy = proxyTo(TestServers.mysql());
        String json = stormUnderChaos(
                proxy,
                "--store",
                "mysql",
                "--mode",
                "transactional",
                "--jdbc-url",
                Endpoints.withParameter(viaProxy(TestServers.mysql(), proxy), "socketTimeout", "5000"));
        assertThat(json).contains("\"appliedTwice\":0").contains("EXACTLY-ONCE");
    }

    @Tag("extended") // CI and -Pextended; the PostgreSQL one runs in every build
    @Test
    void redis_underNetworkFaults_losesNothing_andExplainsEveryExtraApplication() throws Exception {
        FaultProxy proxy = proxyTo(TestServers.redis());
        stormUnderChaos(
                proxy,
                "--store",
                "redis",
                "--redis-url",
                Endpoints.withParameter(viaProxy(TestServers.redis(), proxy), "timeout", "2s"),
                "--events",
                "4500",
                "--event-rate",
                "1500"); // Redis is fast: a longer run, so the outages come while it runs
    }

    // 13 s (dynalite is slow): CI and -Pextended; the lease-mode storm under chaos runs on Redis in the default build.
    @Test
    @Tag("extended")
    void dynamodb_underNetworkFaults_losesNothing_andExplainsEveryExtraApplication() throws Exception {
        try (Dynalite dynalite = Dynalite.forTests()) {
            URI endpoint = URI.create(dynalite.endpoint());
            FaultProxy proxy = FaultProxy.start(endpoint.getHost(), endpoint.getPort());
            stormUnderChaos(
                    proxy,
                    400, // dynalite: about 2,300 replies in this storm
                    1_000,
                    "--store",
                    "dynamodb",
                    "--dynamodb-url",
                    "http://127.0.0.1:" + proxy.port(),
                    "--consumers",
                    "4",
                    "--events",
                    "400",
                    "--event-rate",
                    "300");
        }
    }
}
