package dev.inbox.benchmarks.storm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxKey;
import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class StormRunnerTest {

    private final RunnerCapture runner = new RunnerCapture();

    private int run(String... args) throws Exception {
        return runner.run(args);
    }

    @Test
    void storm_onTheEmbeddedStore_appliesEveryEventExactlyOnce() throws Exception {
        int code = run("--events", "3000", "--json");
        String json = runner.out();
        assertThat(code).as(json + runner.err()).isZero();
        assertThat(json)
                .contains("\"events\":3000")
                .contains("\"appliedTwice\":0")
                .contains("\"neverApplied\":0")
                .contains("\"passed\":true");
        assertThat(json).doesNotContain("\"duplicatesSuppressed\":0,");
        assertThat(json).doesNotContain("\"crashesBeforeWork\":0,").doesNotContain("\"leaseTakeovers\":0,");
    }

    @Test
    void storm_withCrashesAfterWork_reportsTheLeaseModeWindow_notExactlyOnce() throws Exception {
        int code = run("--events", "1500", "--crash-after-work-rate", "0.05", "--crash-before-work-rate", "0");
        String text = runner.out();
        assertThat(code).as(text).isZero();
        assertThat(text).contains("AT-LEAST-ONCE").doesNotContain("EXACTLY-ONCE");
    }

    @Test
    void storm_onAStoreThatLosesRecords_fails() throws Exception {
        // A store that forgets completions lets redeliveries apply events again: the ledger must see it.
        StormConfig config = StormConfig.parse(new String[] {"--events", "500", "--crash-before-work-rate", "0"});
        Storm storm = new Storm(config);
        try (StormTarget forgetful = new LeaseTarget("forgetful", new ForgetfulStore(), "c", config, storm.metrics())) {
            StormReport report = storm.run(forgetful, line -> {});
            assertThat(report.passed()).isFalse();
            assertThat(report.appliedTwiceOrMore()).isPositive();
            assertThat(report.verdict()).startsWith("FAILED");
        }
    }

    @Test
    void storm_onAStoreOfYourOwn_namedByItsSupplierClass_runsOnThatStore() throws Exception {
        int code = run("--store", OwnStores.Correct.class.getName(), "--events", "1000", "--json");
        assertThat(code).as(runner.out() + runner.err()).isZero();
        assertThat(runner.out()).contains("\"passed\":true").contains(OwnStores.Correct.class.getName());
        // The store the class built is the one under test: one that forgets completions fails the run.
        RunnerCapture forgetful = new RunnerCapture();
        assertThat(forgetful.run(
                        "--store",
                        OwnStores.Forgetful.class.getName(),
                        "--events",
                        "500",
                        "--crash-before-work-rate",
                        "0"))
                .as(forgetful.out() + forgetful.err())
                .isEqualTo(1);
        assertThat(forgetful.out()).contains("FAILED");
    }

    @Test
    void storm_onAClassThatIsNotAStoreSupplier_isAUsageErrorSayingWhatToChange() throws Exception {
        assertThat(run("--store", "com.example.NoSuchStore")).isEqualTo(2);
        assertThat(runner.err()).contains("no class com.example.NoSuchStore on the class path");
        RunnerCapture notASupplier = new RunnerCapture();
        assertThat(notASupplier.run("--store", OwnStores.NotASupplier.class.getName()))
                .isEqualTo(2);
        assertThat(notASupplier.err()).contains("is not a java.util.function.Supplier<InboxStore>");
        RunnerCapture aString = new RunnerCapture();
        assertThat(aString.run("--store", OwnStores.SuppliesAString.class.getName()))
                .isEqualTo(2);
        assertThat(aString.err()).contains(".get() returned a java.lang.String, not an InboxStore");
        RunnerCapture transactional = new RunnerCapture();
        assertThat(transactional.run("--store", OwnStores.Correct.class.getName(), "--mode", "transactional"))
                .isEqualTo(2);
        assertThat(transactional.err()).contains("a store of your own runs in lease mode");
    }

    @Test
    void storm_onPostgres_transactionalMode_staysExactlyOnce_evenWithCrashesAfterWork() throws Exception {
        int code = run(
                "--store",
                "postgres",
                "--jdbc-url",
                TestServers.postgres(),
                "--mode",
                "transactional",
                "--events",
                "1500",
                "--crash-after-work-rate",
                "0.03",
                "--crash-before-work-rate",
                "0.02",
                "--json");
        String json = runner.out();
        assertThat(code).as(json + runner.err()).isZero();
        assertThat(json)
                .contains("\"appliedTwice\":0")
                .contains("\"neverApplied\":0")
                .contains("EXACTLY-ONCE");
        assertThat(json).doesNotContain("\"crashesAfterWork\":0,");
    }

    @Test
    void storm_onMysql_transactionalMode_staysExactlyOnce_evenWithCrashesAfterWork() throws Exception {
        int code = run(
                "--store",
                "mysql",
                "--jdbc-url",
                TestServers.mysql(),
                "--mode",
                "transactional",
                "--events",
                "1000",
                "--crash-after-work-rate",
                "0.03",
                "--json");
        String json = runner.out();
        assertThat(code).as(json + runner.err()).isZero();
        assertThat(json)
                .contains("\"appliedTwice\":0")
                .contains("\"neverApplied\":0")
                .contains("EXACTLY-ONCE");
    }

    @Test
    void storm_onRedis_appliesEveryEventExactlyOnce() throws Exception {
        // Released over a second and sampled meanwhile: the soak's "records held" column counts the
        // store's keys (SCAN over its key layout), which must find the records the run wrote.
        int code = run(
                "--store",
                "redis",
                "--redis-url",
                TestServers.redis(),
                "--events",
                "1500",
                "--event-rate",
                "1500",
                "--heap-every-ms",
                "250",
                "--json");
        String json = runner.out();
        assertThat(code).as(json + runner.err()).isZero();
        assertThat(json)
                .contains("\"store\":\"redis (lease mode)\"")
                .contains("\"appliedTwice\":0")
                .contains("\"neverApplied\":0")
                .as("records the run's samples found in Redis (all zero: the count looks for the wrong keys)")
                .containsPattern("\"storedRecords\":\\[[^\\]]*[1-9]");
    }

    @Tag("extended") // CI and -Pextended; the other stores' storms run in every build
    @Test
    void storm_onDynalite_appliesEveryEventExactlyOnce() throws Exception {
        try (Dynalite dynalite = Dynalite.forTests()) {
            int code = run(
                    "--store",
                    "dynamodb",
                    "--dynamodb-url",
                    dynalite.endpoint(),
                    "--events",
                    "300",
                    "--consumers",
                    "4",
                    "--json");
            String json = runner.out();
            assertThat(code).as(json + runner.err()).isZero();
            assertThat(json).contains("\"appliedTwice\":0").contains("\"neverApplied\":0");
        }
    }

    @Test
    void storm_onPostgres_leaseMode_appliesEveryEventExactlyOnce() throws Exception {
        int code = run("--store", "postgres", "--jdbc-url", TestServers.postgres(), "--events", "1500", "--json");
        String json = runner.out();
        assertThat(code).as(json + runner.err()).isZero();
        assertThat(json).contains("\"appliedTwice\":0").contains("\"neverApplied\":0");
    }

    @Test
    void help_printsTheUsageToStandardOutput_andExitsWith0() throws Exception {
        assertThat(run("--help")).isZero();
        assertThat(runner.out()).startsWith("usage: storm");
        assertThat(runner.err()).isEmpty();
    }

    @Test
    void anUnreachableStore_exitsWith3_inOneLineNamingTheEndpoint_withoutItsPassword() throws Exception {
        int dead;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            dead = socket.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + dead + "/test?user=postgres&password=secret";
        assertThat(run("--store", "postgres", "--jdbc-url", url)).isEqualTo(3);
        String message = runner.err().strip();
        assertThat(message)
                .startsWith("storm: cannot reach the postgres store at jdbc:postgresql://127.0.0.1:" + dead)
                .contains("password=***")
                .doesNotContain("secret")
                .contains("Connection refused")
                .doesNotContain("\n");
        assertThat(run("--store", "redis", "--redis-url", "redis://127.0.0.1:" + dead))
                .isEqualTo(3);
    }

    @Test
    void badArguments_exitWith2AndUsage() throws Exception {
        assertThat(run("--events", "zero")).isEqualTo(2);
        assertThat(runner.err()).contains("--events takes a whole number").contains("usage:");
        assertThat(run("--store", "cassandra")).isEqualTo(2);
        assertThat(run("--mode", "eventual")).isEqualTo(2);
        assertThat(run("--store", "caffeine", "--mode", "transactional")).isEqualTo(2);
        assertThat(run("--store", "postgres", "--mode", "transactional-batch")).isEqualTo(2);
        assertThat(runner.err()).contains("--mode transactional-batch needs a --broker");
        assertThat(run("--broker", "rabbitmq", "--mode", "lease-batch")).isEqualTo(2);
        assertThat(runner.err()).contains("--mode lease-batch needs --broker kafka");
        assertThat(run("--fail-rate", "0.6", "--crash-before-work-rate", "0.5")).isEqualTo(2);
        assertThat(run("--bogus", "1")).isEqualTo(2);
    }

    /**
     * Extra applications are charged to their own event: a store that doubles some events while
     * failing (harmlessly) to confirm completions of others fails, although the total of extra
     * applications stays within the total of causes — which the verdict once compared.
     */
    @Test
    void storm_failsAStoreThatDoublesAnEventWithoutACauseOfItsOwn() throws Exception {
        StormConfig config = StormConfig.parse(new String[] {
            "--events", "800", "--crash-before-work-rate", "0", "--crash-after-work-rate", "0", "--fail-rate", "0"
        });
        Storm storm = new Storm(config);
        try (StormTarget target =
                new LeaseTarget("misattributing", new MisattributingStore(), "c", config, storm.metrics())) {
            StormReport report = storm.run(target, line -> {});
            assertThat(report.extraApplications())
                    .as("extra applications, all on the forgotten events")
                    .isPositive()
                    .isLessThanOrEqualTo(report.completionsFailed());
            assertThat(report.passed()).isFalse();
            assertThat(report.verdict()).startsWith("FAILED").contains("of their own event");
        }
    }

    /**
     * Partition 3's completions are recorded but reported failed (a lost reply: a cause that
     * doubles nothing); partition 7's first offsets are forgotten after completing (doubled with no
     * cause at all).
     */
    static final class MisattributingStore extends InMemoryStore {
        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            if (key.id().matches(".*:7:[0-4]")) {
                return delegate.release(key, owner);
            }
            boolean done = delegate.complete(key, owner, retention);
            if (key.id().contains(":3:")) {
                throw new InboxStoreException("the reply to complete was lost", null, true);
            }
            return done;
        }
    }

    /** Completes nothing: every COMPLETED record is dropped at once. */
    static final class ForgetfulStore extends InMemoryStore {
        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            return delegate.release(key, owner);
        }
    }

    /** The embedded store, for broken stores that change one of its operations. */
    abstract static class InMemoryStore implements InboxStore {
        final CaffeineInboxStore delegate = CaffeineInboxStore.builder().build();

        @Override
        public ClaimResult claim(ClaimRequest request) {
            return delegate.claim(request);
        }

        @Override
        public boolean complete(InboxKey key, OwnerToken owner, Duration retention) {
            return delegate.complete(key, owner, retention);
        }

        @Override
        public boolean release(InboxKey key, OwnerToken owner) {
            return delegate.release(key, owner);
        }

        @Override
        public long purge() {
            return 0;
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
