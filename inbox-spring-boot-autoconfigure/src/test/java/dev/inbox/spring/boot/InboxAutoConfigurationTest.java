package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.HandleOutcome;
import dev.inbox.Inbox;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.dynamodb.DynamoDbInboxStore;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.mysql.MysqlInboxStore;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.redis.RedisInboxStore;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.SpringInbox;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.TestServers;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The auto-configuration in application contexts of every store choice, against the real servers. */
// Alone: it captures what the whole JVM prints.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class InboxAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
            .withPropertyValues("spring.application.name=orders");

    /**
     * A pool for one context, which closes it; built even when the server cannot be reached (the
     * inbox's startup check is then what fails).
     */
    static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    @Test
    void aPostgresDataSource_choosesPostgres_andTheSpringInboxJoinsItsTransactions() {
        runner.withBean(DataSource.class, () -> pool(TestServers.postgres()))
                .withPropertyValues(
                        "inbox.create-schema=true", "inbox.jdbc.table=inbox_boot", "inbox.purge.nice-ratio=1.5")
                .run(context -> {
                    assertThat(context).hasSingleBean(InboxStore.class);
                    assertThat(context.getBean(InboxStore.class)).isInstanceOf(PostgresInboxStore.class);
                    assertThat(((PostgresInboxStore) context.getBean(InboxStore.class)).tableName())
                            .contains("inbox_boot");
                    assertThat(((PostgresInboxStore) context.getBean(InboxStore.class)).purgeNiceRatio())
                            .isEqualTo(1.5);
                    assertThat(context.getBean(SpringInbox.class).dataSource())
                            .isSameAs(context.getBean(DataSource.class));
                    Inbox inbox = context.getBean(Inbox.class);
                    assertThat(inbox.consumer()).isEqualTo("orders");
                    String id = "e-" + UUID.randomUUID();
                    assertThat(inbox.handle(id, () -> {}).outcome()).isEqualTo(HandleOutcome.PROCESSED);
                    assertThat(inbox.handle(id, () -> {}).outcome()).isEqualTo(HandleOutcome.DUPLICATE);
                });
    }

    @Test
    void aMariadbDataSource_choosesMysql() {
        runner.withBean(DataSource.class, () -> pool(TestServers.mysql()))
                .withPropertyValues(
                        "inbox.create-schema=true", "inbox.jdbc.table=inbox_boot", "inbox.purge.nice-ratio=2")
                .run(context -> {
                    assertThat(context.getBean(InboxStore.class)).isInstanceOf(MysqlInboxStore.class);
                    assertThat(((MysqlInboxStore) context.getBean(InboxStore.class)).purgeNiceRatio())
                            .isEqualTo(2.0);
                    assertThat(context.getBean(SpringInbox.class).dataSource())
                            .isSameAs(context.getBean(DataSource.class));
                    assertThat(context.getBean(Inbox.class)
                                    .handle("e-" + UUID.randomUUID(), () -> {})
                                    .outcome())
                            .isEqualTo(HandleOutcome.PROCESSED);
                });
    }

    @Test
    void aLettuceClient_choosesRedis_andTheSpringInboxIsLeaseOnly() {
        RedisClient client = RedisClient.create(TestServers.redis());
        try {
            runner.withBean(RedisClient.class, () -> client).run(context -> {
                assertThat(context.getBean(InboxStore.class)).isInstanceOf(RedisInboxStore.class);
                assertThat(context.getBean(SpringInbox.class).dataSource()).isNull();
                assertThat(context.getBean(Inbox.class)
                                .handle("e-" + UUID.randomUUID(), () -> {})
                                .outcome())
                        .isEqualTo(HandleOutcome.PROCESSED);
            });
        } finally {
            client.shutdown();
        }
    }

    @Test
    void redisWaitForReplicas_isPassedToTheStore() {
        runner.withPropertyValues(
                        "inbox.redis.url=" + TestServers.redis(),
                        "inbox.redis.wait-for-replicas=1",
                        "inbox.redis.wait-timeout=50ms")
                .run(context -> assertThatThrownBy(
                                () -> context.getBean(Inbox.class).handle("e-" + UUID.randomUUID(), () -> {}))
                        .as("the test server has no replica to acknowledge the claim")
                        .isInstanceOf(InboxStoreException.class)
                        .hasMessageContaining("0 of 1 replicas within 50 ms"));
    }

    @Test
    void redisPlainNewKeyClaims_arePassedToTheStore() {
        String prefix = "inbox-boot-" + UUID.randomUUID().toString().replace("-", "");
        RedisClient raw = RedisClient.create(TestServers.redis());
        try (var connection = raw.connect()) {
            for (String plain : new String[] {"true", "false"}) {
                runner.withPropertyValues(
                                "inbox.redis.url=" + TestServers.redis(),
                                "inbox.redis.prefix=" + prefix,
                                "inbox.consumer=plain-" + plain,
                                "inbox.redis.plain-new-key-claims=" + plain)
                        .run(context -> {
                            var claim = context.getBean(Inbox.class).claims().claim("e-1");
                            try {
                                String consumerHex = java.util.HexFormat.of()
                                        .formatHex(("plain-" + plain).getBytes(StandardCharsets.UTF_8));
                                var names = connection.sync().keys(prefix + ":" + consumerHex + ":{*}:e-1");
                                assertThat(names).hasSize(1);
                                // a plain claim keeps its lease in the TTL (9e15 + grace); a script's, an expiry in ms
                                assertThat(connection.sync().get(names.get(0)))
                                        .as("the record with inbox.redis.plain-new-key-claims=" + plain)
                                        .startsWith(plain.equals("true") ? "I 9" : "I 1");
                            } finally {
                                claim.release();
                            }
                        });
            }
        } finally {
            raw.shutdown();
        }
    }

    @Test
    void redisKeyLayout_isPassedToTheStore() {
        String prefix = "inbox-boot-" + UUID.randomUUID().toString().replace("-", "");
        String consumerHex = java.util.HexFormat.of().formatHex("layout".getBytes(StandardCharsets.UTF_8));
        RedisClient raw = RedisClient.create(TestServers.redis());
        try (var connection = raw.connect()) {
            runner.withPropertyValues(
                            "inbox.redis.url=" + TestServers.redis(),
                            "inbox.redis.prefix=" + prefix,
                            "inbox.consumer=layout",
                            "inbox.redis.key-layout=consumer-slot")
                    .run(context -> context.getBean(Inbox.class).handle("e-1", () -> {}));
            assertThat(connection.sync().exists(prefix + ":{" + consumerHex + "}:e-1"))
                    .as("the 0.1 layout")
                    .isEqualTo(1);
            runner.withPropertyValues(
                            "inbox.redis.url=" + TestServers.redis(),
                            "inbox.redis.prefix=" + prefix,
                            "inbox.consumer=layout")
                    .run(context -> context.getBean(Inbox.class).handle("e-2", () -> {}));
            assertThat(connection.sync().keys(prefix + ":" + consumerHex + ":{*}:e-2"))
                    .as("spread by default")
                    .hasSize(1);
            runner.withPropertyValues("inbox.redis.url=" + TestServers.redis(), "inbox.redis.key-layout=sideways")
                    .run(context -> assertThat(context)
                            .hasFailed()
                            .getFailure()
                            .rootCause()
                            .hasMessageContaining("inbox.redis.key-layout must be spread or consumer-slot"));
        } finally {
            raw.shutdown();
        }
    }

    /** A client of {@code dynalite}, with the test credentials it accepts. */
    static DynamoDbClient client(Dynalite dynalite) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create(dynalite.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    @Test
    void aDynamoDbClient_choosesDynamoDb() throws Exception {
        try (Dynalite dynalite = Dynalite.forTests();
                DynamoDbClient client = client(dynalite)) {
            runner.withBean(DynamoDbClient.class, () -> client)
                    .withPropertyValues("inbox.create-schema=true", "inbox.dynamodb.table=inbox_boot")
                    .run(context -> {
                        assertThat(context.getBean(InboxStore.class)).isInstanceOf(DynamoDbInboxStore.class);
                        assertThat(context.getBean(Inbox.class)
                                        .handle("e-" + UUID.randomUUID(), () -> {})
                                        .outcome())
                                .isEqualTo(HandleOutcome.PROCESSED);
                    });
        }
    }

    @Test
    void noStoreClient_choosesMemory_withAWarningThatItIsNotForAFleet(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context.getBean(InboxStore.class)).isInstanceOf(CaffeineInboxStore.class);
            assertThat(output).contains("not for a fleet");
        });
    }

    /** A misspelt inbox.* property is reported at startup, naming it; the known ones are not. */
    @Test
    void anUnknownInboxProperty_isReportedAtStartup_andKnownOnesAreNot(CapturedOutput output) {
        runner.withPropertyValues("spring.application.name=typos", "inbox.retension=7d", "inbox.lease=2m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).containsPattern("WARN.*inbox: no setting of the starter reads inbox.retension");
                    assertThat(output).doesNotContain("reads inbox.lease");
                });
    }

    /** A listener's failure is logged at WARN with the event's id and the cause, not only by its container. */
    @Test
    void aListenerFailure_isLoggedAtWarn_withTheEventAndTheCause(CapturedOutput output) {
        runner.withPropertyValues("spring.application.name=failures").run(context -> {
            dev.inbox.spring.InboxClaim claim =
                    context.getBean(dev.inbox.spring.SpringInbox.class).claim("order-17");
            claim.releaseAfterFailure(new IllegalStateException("the ledger refused order 17"));
            assertThat(output)
                    .containsPattern("WARN.*the listener of event order-17 failed \\(java.lang.IllegalStateException:"
                            + " the ledger refused order 17\\); its claim is released");
            assertThat(context.getBean(dev.inbox.spring.SpringInbox.class)
                            .claim("order-17")
                            .isAcquired())
                    .as("released: the next delivery runs it")
                    .isTrue();
        });
    }

    @Test
    void inboxStore_overridesTheChoice_andSaysWhichModuleIsMissing() {
        runner.withBean(DataSource.class, () -> pool(TestServers.postgres()))
                .withPropertyValues("inbox.store=memory")
                .run(context -> assertThat(context.getBean(InboxStore.class)).isInstanceOf(CaffeineInboxStore.class));
        runner.withClassLoader(new FilteredClassLoader(RedisInboxStore.class))
                .withPropertyValues("inbox.store=redis")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("needs the module inbox-redis"));
        runner.withPropertyValues("inbox.store=postgres")
                .run(context ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("needs one DataSource bean"));
    }

    @Test
    void aBrokerWithoutItsAdapter_failsTheStartup_namingTheDependency() {
        runner.withClassLoader(new FilteredClassLoader(dev.inbox.kafka.RecordKeys.class))
                .withPropertyValues("inbox.store=memory")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("add the dependency dev.inbox:inbox-kafka"));
        runner.withClassLoader(new FilteredClassLoader(dev.inbox.rabbitmq.MessageKeys.class))
                .withPropertyValues("inbox.store=memory")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("add the dependency dev.inbox:inbox-rabbitmq"));
        runner.withClassLoader(new FilteredClassLoader(dev.inbox.rabbitmq.MessageKeys.class))
                .withPropertyValues("inbox.store=memory", "inbox.rabbit.enabled=false")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withClassLoader(new FilteredClassLoader(dev.inbox.sqs.SqsKeys.class))
                .withPropertyValues("inbox.store=memory")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("add the dependency dev.inbox:inbox-sqs"));
    }

    @Test
    void aWrongProperty_failsTheStartup_namingIt() {
        runner.withPropertyValues("inbox.retention=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessage("inbox.retention must be positive, but was PT0S"));
        runner.withPropertyValues("inbox.lease=30")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("inbox.lease must be at least a second, but was PT0.03S")
                        .hasMessageContaining("without a unit is read as milliseconds"));
        runner.withPropertyValues("inbox.store=memory", "inbox.lease=2m", "inbox.max-in-hand=1m")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("maxInHand must be longer than the lease"));
        runner.withPropertyValues("inbox.store=memory", "inbox.max-in-hand=90m")
                .run(context ->
                        assertThat(context.getBean(Inbox.class).maxInHand()).isEqualTo(Duration.ofMinutes(90)));
        runner.withPropertyValues("inbox.purge.nice-ratio=-1")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessage("inbox.purge.nice-ratio must be between 0 and 100, but was -1.0"));
        runner.withPropertyValues("inbox.store=cassandra")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("inbox.store"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InboxStartupException.class)
                        .hasMessageContaining("Set inbox.consumer"));
    }

    @Test
    void theApplicationsOwnBeans_win() {
        InboxStore own = CaffeineInboxStore.builder().build();
        runner.withBean(DataSource.class, () -> pool(TestServers.postgres()))
                .withBean(InboxStore.class, () -> own)
                .run(context -> {
                    assertThat(context.getBean(InboxStore.class)).isSameAs(own);
                    assertThat(context.getBean(SpringInbox.class).dataSource()).isNull();
                });
        Inbox inbox = Inbox.builder(own).consumer("mine").build();
        runner.withBean(Inbox.class, () -> inbox)
                .run(context -> assertThat(context.getBean(Inbox.class)).isSameAs(inbox));
    }

    @Test
    void aMeterRegistry_getsTheInboxMeters() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context.getBean(InboxMetrics.class)).isInstanceOf(MicrometerInboxMetrics.class);
            context.getBean(Inbox.class).handle("e1", () -> {});
            assertThat(context.getBean(MeterRegistry.class)
                            .get("inbox.claims")
                            .tag("consumer", "orders")
                            .counters())
                    .isNotEmpty();
        });
    }

    @Test
    void anObservationRegistry_observesTheInboxSteps() {
        io.micrometer.observation.tck.TestObservationRegistry observations =
                io.micrometer.observation.tck.TestObservationRegistry.create();
        runner.withPropertyValues("inbox.store=memory")
                .withBean(io.micrometer.observation.ObservationRegistry.class, () -> observations)
                .run(context -> {
                    context.getBean(Inbox.class).handle("e1", () -> {});
                    io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(observations)
                            .hasObservationWithNameEqualTo("inbox.claim")
                            .that()
                            .hasLowCardinalityKeyValue("outcome", "acquired")
                            .hasHighCardinalityKeyValue("inbox.key", "e1");
                    io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(observations)
                            .hasObservationWithNameEqualTo("inbox.work")
                            .that()
                            .hasBeenStopped();
                    io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(observations)
                            .hasObservationWithNameEqualTo("inbox.complete")
                            .that()
                            .hasLowCardinalityKeyValue("outcome", "completed");
                });
    }

    @Test
    void theHealthIndicator_isUpWhenTheStoreAnswers_andDownWhenItDoesNot() {
        runner.withBean(DataSource.class, () -> pool(TestServers.postgres()))
                .withPropertyValues("inbox.create-schema=true", "inbox.jdbc.table=inbox_boot")
                .run(context -> {
                    var health = context.getBean(InboxHealthIndicator.class).health(true);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("consumer", "orders");
                });
        HikariConfig nowhere = new HikariConfig();
        nowhere.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/test?connectTimeout=1");
        nowhere.setInitializationFailTimeout(-1);
        nowhere.setConnectionTimeout(1000);
        {
            runner.withBean(DataSource.class, () -> new HikariDataSource(nowhere))
                    .withPropertyValues("inbox.store=postgres", "inbox.check-store=false")
                    .run(context -> assertThat(context.getBean(InboxHealthIndicator.class)
                                    .health(true)
                                    .getStatus())
                            .isEqualTo(Status.DOWN));
        }
    }

    @Test
    void theInfoEndpoint_showsTheRetentionAndTheLease() {
        runner.withPropertyValues("inbox.store=memory", "inbox.retention=72h", "inbox.purge.enabled=false")
                .run(context -> {
                    Info.Builder builder = new Info.Builder();
                    context.getBean("inboxInfoContributor", InfoContributor.class)
                            .contribute(builder);
                    assertThat(builder.build().getDetails().get("inbox"))
                            .isEqualTo(Map.of(
                                    "consumer", "orders",
                                    "store", context.getBean(InboxStore.class).toString(),
                                    "retention", "PT72H",
                                    "lease", "PT1M",
                                    "purge", "off"));
                });
    }

    @Test
    void purge_runsOnItsSchedule_andIsOffWithAProperty() {
        runner.withPropertyValues("inbox.store=memory", "inbox.purge.interval=50ms")
                .run(context -> {
                    InboxPurgeScheduler scheduler = context.getBean(InboxPurgeScheduler.class);
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (scheduler.purges() < 3 && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    assertThat(scheduler.purges()).isGreaterThanOrEqualTo(3);
                });
        runner.withPropertyValues("inbox.store=memory", "inbox.purge.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(InboxPurgeScheduler.class));
    }
}
