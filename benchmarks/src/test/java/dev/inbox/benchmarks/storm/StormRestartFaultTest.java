package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.Endpoints;
import dev.inbox.testing.LocalMariadb;
import dev.inbox.testing.LocalPostgres;
import dev.inbox.testing.LocalServer;
import dev.inbox.testing.RedisProcesses;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Storms during which the server crashes and comes back, on servers this test starts itself: a
 * PostgreSQL cluster of its own (immediate shutdown, WAL recovery on restart), a MariaDB server of
 * its own (SIGKILL, InnoDB crash recovery) and standalone Redis servers (SIGKILL) with and without
 * an fsync'd append-only file. The run must complete once the
 * server is back; what it may apply twice depends on what the server kept.
 */
@Timeout(180)
@Tag("extended") // CI and -Pextended: the storm across a server crash and restart
class StormRestartFaultTest {

    /** The running test's method name, naming its kept report. */
    private String test;

    @BeforeEach
    void name(TestInfo info) {
        test = info.getTestMethod().orElseThrow().getName();
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /**
     * Runs the storm (2,500 events at 1,000/s); 1.5 s in, crashes the server, and 0.5 s later starts
     * it again. A small storm first warms the client up (class loading, the first connection), so
     * that on a busy machine the crash comes while events flow, not while the store connects.
     */
    private int stormWithRestart(Step crash, Step restart, String... args) throws Exception {
        WarmUp.storm(args);
        List<String> all = new ArrayList<>(List.of("--events", "2500", "--event-rate", "1000", "--json"));
        all.addAll(List.of(args));
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> storm = runner.submit(() -> StormRunner.run(
                    all.toArray(String[]::new),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(System.err, true, StandardCharsets.UTF_8)));
            Thread.sleep(1_500);
            assertThat(storm.isDone())
                    .as("the storm still runs when the server crashes")
                    .isFalse();
            crash.run();
            Thread.sleep(500);
            restart.run();
            int code = storm.get(150, TimeUnit.SECONDS);
            System.err.println("storm with a server restart: " + out.toString(StandardCharsets.UTF_8));
            StormReports.keep(
                    "restart-" + test, "crash after 1.5 s, restart 0.5 s later", out.toString(StandardCharsets.UTF_8));
            return code;
        } finally {
            runner.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    @Test
    void postgresTransactional_serverCrashAndRestart_everyEventAppliedExactlyOnce() throws Exception {
        try (LocalPostgres postgres = LocalPostgres.start()) {
            sqlStormWithRestart(postgres, "postgres");
        }
    }

    @Test
    @Tag("extended") // the PostgreSQL restart runs in every build; this one in CI and -Pextended
    void mariadbTransactional_serverKilledAndRestarted_everyEventAppliedExactlyOnce() throws Exception {
        try (LocalMariadb mariadb = LocalMariadb.start()) {
            sqlStormWithRestart(mariadb, "mysql");
        }
    }

    private void sqlStormWithRestart(LocalServer server, String store) throws Exception {
        int code = stormWithRestart(
                server::crash,
                server::restart,
                "--store",
                store,
                "--mode",
                "transactional",
                "--jdbc-url",
                server.jdbcUrl());
        String json = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(json).isZero();
        assertThat(json)
                .contains("\"appliedTwice\":0")
                .contains("\"neverApplied\":0")
                .contains("EXACTLY-ONCE")
                .doesNotContain("\"storeErrors\":0,");
    }

    @Test
    @Tag("extended") // 13 s: CI and -Pextended
    void redisWithAppendfsyncAlways_serverCrashAndRestart_losesNothing() throws Exception {
        String json = redisStorm(true, 0);
        assertThat(json).contains("\"neverApplied\":0").contains("\"passed\":true");
    }

    // 9 s, a second Redis configuration: CI and -Pextended.
    @Test
    @Tag("extended")
    void redisWithoutPersistence_serverCrashAndRestart_appliesCompletedEventsAgain() throws Exception {
        String json = redisStorm(false, 1);
        assertThat(json)
                .as("redeliveries after the restart find no record and apply the work again")
                .contains("\"passed\":false")
                .contains("FAILED")
                .doesNotContain("\"appliedTwice\":0,");
    }

    private String redisStorm(boolean durable, int expectedCode) throws Exception {
        try (RedisProcesses redis = RedisProcesses.standalone(durable)) {
            int code = stormWithRestart(
                    redis::crash,
                    redis::restart,
                    "--store",
                    "redis",
                    "--redis-url",
                    Endpoints.withParameter(redis.uri(), "timeout", "2s"),
                    // Redeliveries up to 3 s late, so many arrive after the restart.
                    "--max-redelivery-delay-ms",
                    "3000");
            String json = out.toString(StandardCharsets.UTF_8);
            assertThat(code).as(json).isEqualTo(expectedCode);
            return json;
        }
    }
}
