package dev.inbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.InboxKey;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.ClaimStatus;
import dev.inbox.spi.InboxStore;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.TestServers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** The command line against the real servers, each store by its URL, as an operator runs it. */
class InboxCliTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Dynalite dynalite;

    private final String consumer = "cli-" + UUID.randomUUID();

    @BeforeAll
    static void startDynalite() throws Exception {
        dynalite = Dynalite.forTests();
        // The SDK's default credentials chain reads these; dynalite accepts any.
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");
    }

    @AfterAll
    static void stopDynalite() {
        dynalite.close();
    }

    /** A run of the tool: its exit code and what it printed. */
    record Run(int code, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine line = InboxCli.command();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        int code = line.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static String url(String store) {
        return switch (store) {
            case "postgres" -> TestServers.postgres();
            case "mysql" -> TestServers.mysql();
            case "redis" -> TestServers.redis();
            default -> "dynamodb://" + dynalite.endpoint().replaceFirst("^https?://", "");
        };
    }

    private static Stores open(String url) {
        Stores opened = Stores.open(url, "inbox_cli", "inbox-cli", "us-east-1");
        InboxStore store = opened.store();
        if (store instanceof PostgresInboxStore postgres) {
            postgres.createSchemaIfMissing();
        } else if (store instanceof MysqlInboxStore mysql) {
            mysql.createSchemaIfMissing();
        } else if (store instanceof DynamoDbInboxStore dynamo) {
            dynamo.createTableIfMissing();
        }
        return opened;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mysql", "redis", "dynamodb"})
    void everyCommand_againstTheRealStore(String backend) throws Exception {
        String url = url(backend);
        String[] store = {"--store", url, "--table", "inbox_cli", "--prefix", "inbox-cli", "--region", "us-east-1"};
        try (Stores opened = open(url)) {
            InboxStore s = opened.store();
            OwnerToken dead = OwnerToken.random();
            s.claim(ClaimRequest.of(InboxKey.of(consumer, "held"), dead, Duration.ofMillis(100)));
            OwnerToken live = OwnerToken.random();
            s.claim(ClaimRequest.of(InboxKey.of(consumer, "live"), live, Duration.ofMinutes(5)));
            OwnerToken done = OwnerToken.random();
            s.claim(ClaimRequest.of(InboxKey.of(consumer, "done"), done, Duration.ofMinutes(5)));
            assertThat(s.complete(InboxKey.of(consumer, "done"), done, Duration.ofMinutes(5)))
                    .isTrue();
            Thread.sleep(300);

            Run inspect = run(concat(store, "inspect", consumer, "done"));
            assertThat(inspect.code()).as(inspect.err()).isEqualTo(InboxCli.OK);
            assertThat(inspect.out()).contains("state").contains("COMPLETED").contains(done.value());
            Run absent = run(concat(store, "inspect", consumer, "absent"));
            assertThat(absent.code()).isEqualTo(InboxCli.NOTHING);
            assertThat(absent.out()).contains("no record of \"absent\"");

            JsonNode stats = run(concat(store, "--json", "stats", consumer)).json();
            assertThat(stats.get("inProgress").asLong()).isEqualTo(1);
            assertThat(stats.get("leaseEnded").asLong()).isEqualTo(1);
            assertThat(stats.get("completed").asLong()).isEqualTo(1);
            assertThat(run(concat(store, "stats", consumer)).out())
                    .contains("lease ended")
                    .contains("total");

            Run stuck = run(concat(store, "stuck", consumer));
            assertThat(stuck.code()).as(stuck.err()).isEqualTo(InboxCli.OK);
            assertThat(stuck.out()).contains("held").contains(dead.value()).doesNotContain("live");
            JsonNode page = run(concat(store, "--json", "stuck", consumer, "--overdue", "10m"))
                    .json();
            assertThat(page.get("stuck")).isEmpty();

            Run dryRelease = run(concat(store, "release", consumer, "live"));
            assertThat(dryRelease.code()).isEqualTo(InboxCli.NOTHING);
            assertThat(dryRelease.out()).contains("IN_PROGRESS").contains("add --yes");
            assertThat(s.claim(ClaimRequest.of(
                                    InboxKey.of(consumer, "live"), OwnerToken.random(), Duration.ofMinutes(1)))
                            .status())
                    .as("without --yes nothing changed")
                    .isEqualTo(ClaimStatus.BUSY);
            Run release = run(concat(store, "release", consumer, "live", "--yes"));
            assertThat(release.code()).as(release.err()).isEqualTo(InboxCli.OK);
            assertThat(s.complete(InboxKey.of(consumer, "live"), live, Duration.ofMinutes(1)))
                    .as("the released owner is fenced")
                    .isFalse();

            JsonNode forgot = run(concat(store, "--json", "forget", consumer, "done", "--yes"))
                    .json();
            assertThat(forgot.get("forgotten").asBoolean()).isTrue();
            assertThat(run(concat(store, "forget", consumer, "done", "--yes")).code())
                    .isEqualTo(InboxCli.NOTHING);
            assertThat(s.claim(ClaimRequest.of(
                                    InboxKey.of(consumer, "done"), OwnerToken.random(), Duration.ofMinutes(1)))
                            .status())
                    .as("the forgotten event is applied again")
                    .isEqualTo(ClaimStatus.ACQUIRED);

            Run dry = run(concat(store, "purge", "--dry-run", "--consumer", consumer));
            assertThat(dry.out()).contains("would remove 0 records");
            assertThat(dry.code()).isEqualTo(InboxCli.NOTHING);
        }
    }

    @Test
    void badUsage_andAFailingStore_haveTheirExitCodes() {
        Run help = run("--help");
        assertThat(help.code()).isEqualTo(InboxCli.OK);
        assertThat(help.out()).contains("inspect", "stuck", "stats", "release", "forget", "purge", "Exit codes");

        Run unknown = run("--store", "mongodb://localhost", "stats", "billing");
        assertThat(unknown.code()).isEqualTo(InboxCli.USAGE);
        assertThat(unknown.err()).contains("unknown store URL");

        Run noStore = run("stats", "billing");
        assertThat(noStore.code()).isEqualTo(InboxCli.USAGE);
        assertThat(noStore.err()).contains("give --store");

        Run badDuration = run("--store", TestServers.postgres(), "stuck", "billing", "--overdue", "5x");
        assertThat(badDuration.code()).isEqualTo(InboxCli.USAGE);
        assertThat(badDuration.err()).contains("is not a duration");

        Run badLimit = run("--store", TestServers.postgres(), "stuck", "billing", "--limit", "0");
        assertThat(badLimit.code()).isEqualTo(InboxCli.USAGE);
        assertThat(badLimit.err()).contains("limit");

        Run dryRunWithoutConsumer = run("--store", TestServers.postgres(), "purge", "--dry-run");
        assertThat(dryRunWithoutConsumer.code()).isEqualTo(InboxCli.USAGE);

        Run down = run("--store", "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=2", "stats", "billing");
        assertThat(down.code()).isEqualTo(InboxCli.STORE_FAILED);
        assertThat(down.err()).contains("the store failed");
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = new String[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
