package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.testing.Dynalite;
import dev.inbox.testing.TestServers;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A store that cannot answer at startup stops the application with Boot's failure analysis naming
 * the real cause — a missing table, a server that cannot be reached — and what to change, against
 * the real servers.
 */
// Alone: it captures what the whole JVM prints.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class InboxStartupFailureTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
            .withPropertyValues("spring.application.name=orders");

    private static FailureAnalysis analysis(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new InboxFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis)
                .as("the inbox's failure analysis of %s", context.getStartupFailure())
                .isNotNull();
        return analysis;
    }

    @Test
    void aMissingSqlTable_failsTheStartup_sayingHowToCreateIt() {
        for (String url : List.of(TestServers.postgres(), TestServers.mysql())) {
            String table = "inbox_missing_" + UUID.randomUUID().toString().substring(0, 8);
            runner.withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(url))
                    .withPropertyValues("inbox.jdbc.table=" + table)
                    .run(context -> {
                        FailureAnalysis analysis = analysis(context);
                        assertThat(analysis.getDescription())
                                .contains("does not exist")
                                .contains(table);
                        assertThat(analysis.getAction()).contains("inbox.create-schema=true");
                    });
            runner.withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(url))
                    .withPropertyValues("inbox.jdbc.table=" + table, "inbox.create-schema=true")
                    .run(context -> assertThat(context).as("created at startup").hasNotFailed());
        }
    }

    @Test
    void aMissingDynamoDbTable_failsTheStartup_sayingHowToCreateIt() throws Exception {
        try (Dynalite dynalite = Dynalite.forTests();
                DynamoDbClient client = InboxAutoConfigurationTest.client(dynalite)) {
            runner.withBean(DynamoDbClient.class, () -> client)
                    .withPropertyValues("inbox.dynamodb.table=inbox_missing")
                    .run(context -> {
                        FailureAnalysis analysis = analysis(context);
                        assertThat(analysis.getDescription()).contains("does not exist");
                        assertThat(analysis.getAction()).contains("inbox.dynamodb.table");
                    });
        }
    }

    @Test
    void anUnreachableServer_failsTheStartup_namingTheRealCause_unlessTheCheckIsOff() {
        String nowhere = "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=1";
        runner.withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(nowhere))
                .withPropertyValues("inbox.store=postgres")
                .run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription())
                            .contains("did not answer at startup")
                            .contains("ConnectException");
                    assertThat(analysis.getAction()).contains("inbox.check-store=false");
                });
        runner.withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(nowhere))
                .withPropertyValues("inbox.store=postgres", "inbox.check-store=false")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("inbox.redis.url=redis://127.0.0.1:1")
                .run(context -> assertThat(analysis(context).getDescription())
                        .contains("RedisInboxStore")
                        .contains("did not answer at startup")
                        .containsIgnoringCase("connection refused"));
    }

    /** With inbox.store left to auto, a database that does not answer is analysed as with inbox.store set. */
    @Test
    void anUnreachableDatabase_withTheStoreLeftToAuto_isAnalysedToo() {
        String nowhere = "jdbc:postgresql://127.0.0.1:1/test?connectTimeout=1";
        runner.withBean(DataSource.class, () -> InboxAutoConfigurationTest.pool(nowhere))
                .run(context -> {
                    FailureAnalysis analysis = analysis(context);
                    assertThat(analysis.getDescription()).contains("did not answer at startup");
                    assertThat(analysis.getAction()).contains("inbox.check-store=false");
                });
    }

    @Test
    void noConsumerName_isAnalysedToo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(InboxAutoConfiguration.class))
                .withPropertyValues("inbox.store=memory")
                .run(context -> assertThat(analysis(context).getAction()).contains("Set inbox.consumer"));
    }

    /** A real application, as a user starts one: Boot finds the analyzer and prints the box. */
    @Test
    void aFailedApplication_printsTheAnalysisInBootsBox(CapturedOutput output) {
        String table = "inbox_missing_" + UUID.randomUUID().toString().substring(0, 8);
        SpringApplication app = new SpringApplication(MissingTableApp.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(() -> app.run(
                        "--spring.application.name=orders",
                        "--inbox.jdbc.table=" + table,
                        "--inbox.purge.enabled=false"))
                .hasRootCauseInstanceOf(java.sql.SQLException.class);
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("The inbox table of")
                .contains(table)
                .contains("Set inbox.create-schema=true");
    }

    @Configuration(proxyBeanMethods = false)
    @Import(InboxAutoConfiguration.class)
    static class MissingTableApp {
        @Bean(destroyMethod = "close")
        HikariDataSource dataSource() {
            return InboxAutoConfigurationTest.pool(TestServers.postgres());
        }
    }
}
