package dev.inbox.spring.kafka.share;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.spring.boot.InboxAutoConfiguration;
import dev.inbox.spring.boot.InboxKafkaListeners;
import dev.inbox.testing.KafkaBroker;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;

/** A Spring Boot application with the inbox starter and this module, on the real broker. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InboxShareStarterTest {

    @Configuration(proxyBeanMethods = false)
    static class Deduplicated {
        final List<String> applied = new CopyOnWriteArrayList<>();

        @KafkaListener(
                id = "share-billing",
                topics = "${test.topic}",
                groupId = "${test.group}",
                containerFactory = InboxShareAutoConfiguration.FACTORY)
        void on(String order) {
            applied.add(order);
        }
    }

    /** A listener that writes a ledger row with {@code JdbcTemplate}, and fails once after writing for "charge 2". */
    @Configuration(proxyBeanMethods = false)
    static class Ledger {
        @Bean(destroyMethod = "close")
        HikariDataSource dataSource() {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(TestServers.postgres());
            config.setMaximumPoolSize(4);
            return new HikariDataSource(config);
        }

        @Bean
        LedgerListener ledgerListener(DataSource dataSource, Environment environment) {
            return new LedgerListener(new JdbcTemplate(dataSource), environment.getRequiredProperty("test.ledger"));
        }
    }

    static class LedgerListener {
        final JdbcTemplate jdbc;
        final String table;
        final AtomicBoolean failedOnce = new AtomicBoolean();

        LedgerListener(JdbcTemplate jdbc, String table) {
            this.jdbc = jdbc;
            this.table = table;
        }

        @KafkaListener(
                id = "share-ledger",
                topics = "${test.topic}",
                groupId = "${test.group}",
                containerFactory = InboxShareAutoConfiguration.FACTORY)
        void on(String order) {
            jdbc.update("INSERT INTO " + table + " (entry) VALUES (?)", order);
            if (order.equals("charge 2") && failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("failed after writing its row: the row must roll back");
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Failing {
        @KafkaListener(
                id = "share-failing",
                topics = "${test.topic}",
                groupId = "${test.group}",
                containerFactory = InboxShareAutoConfiguration.FACTORY)
        void on(String order) {
            throw new StackOverflowError("the listener failed beyond recovery");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OnSpringsShareContainer {
        @Bean
        ShareKafkaListenerContainerFactory<String, String> plainShares() {
            return new ShareKafkaListenerContainerFactory<>(
                    new DefaultShareConsumerFactory<>(KafkaBroker.shareConsumerConfig("unused")));
        }

        @Bean
        Undeduplicated undeduplicated() {
            return new Undeduplicated();
        }
    }

    static class Undeduplicated {
        @KafkaListener(
                id = "share-undeduplicated",
                topics = "${test.topic}",
                groupId = "${test.group}",
                containerFactory = "plainShares",
                autoStartup = "false")
        void on(String order) {}
    }

    private final String run = UUID.randomUUID().toString();
    private final String topic = "inbox-share-starter-" + run;
    private final String group = "inbox-share-starter-group-" + run;
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class, InboxAutoConfiguration.class, InboxShareAutoConfiguration.class))
            .withPropertyValues(
                    "spring.application.name=share-" + run,
                    "test.topic=" + topic,
                    "test.group=" + group,
                    "spring.kafka.bootstrap-servers=" + KafkaBroker.bootstrap(),
                    // A classic consumer's setting in the shared settings: left out of share consumers.
                    "spring.kafka.consumer.properties.group.protocol=consumer",
                    "inbox.store=memory",
                    "inbox.kafka.key-header=event-id",
                    "inbox.kafka.busy-backoff=100ms");

    @Test
    void aShareListenerNamingTheFactory_runsOncePerEvent() throws Exception {
        String topic = ShareKafka.topic(1);
        ShareKafka.shareGroup(group, Duration.ofSeconds(30), 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig())) {
            send(producer, topic, "order-1", "charge 1");
            send(producer, topic, "order-1", "charge 1, sent again");
            send(producer, topic, "order-2", "charge 2");
        }
        runner.withUserConfiguration(Deduplicated.class)
                .withPropertyValues("test.topic=" + topic)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    try (Admin admin =
                            Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
                        ShareKafka.awaitAllAccepted(admin, group, new TopicPartition(topic, 0), 3);
                    }
                    assertThat(context.getBean(Deduplicated.class).applied)
                            .containsExactlyInAnyOrder("charge 1", "charge 2");
                });
    }

    /**
     * {@code inbox.kafka.transactional=true}: the listener's {@code JdbcTemplate} writes are in the
     * claim's transaction — the row of the attempt that failed after writing it is rolled back, so
     * the ledger holds one row per event (in lease mode it would hold that row too).
     */
    @Test
    void transactional_theListenersJdbcWritesJoinTheClaimsTransaction() throws Exception {
        String topic = ShareKafka.topic(1);
        String ledger = "inbox_share_ledger_" + run.replace("-", "");
        ShareKafka.shareGroup(group, Duration.ofSeconds(30), 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig())) {
            send(producer, topic, "order-1", "charge 1");
            send(producer, topic, "order-1", "charge 1, sent again");
            send(producer, topic, "order-2", "charge 2");
        }
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(TestServers.postgres()));
        jdbc.execute("CREATE TABLE " + ledger + " (entry TEXT NOT NULL)");
        try {
            runner.withUserConfiguration(Ledger.class)
                    .withPropertyValues(
                            "test.topic=" + topic,
                            "test.ledger=" + ledger,
                            "inbox.store=postgres",
                            // the table may not be there yet: this test must not rely on another module's run
                            "inbox.create-schema=true",
                            "inbox.kafka.transactional=true")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        try (Admin admin = Admin.create(
                                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaBroker.bootstrap()))) {
                            ShareKafka.awaitAllAccepted(admin, group, new TopicPartition(topic, 0), 3);
                        }
                        assertThat(context.getBean(LedgerListener.class).failedOnce)
                                .isTrue();
                        assertThat(jdbc.queryForList("SELECT entry FROM " + ledger, String.class))
                                .containsExactlyInAnyOrder("charge 1", "charge 2");
                    });
        } finally {
            jdbc.execute("DROP TABLE " + ledger);
        }
    }

    /** What the health indicator reads: a share container whose member ended by a throw consumes nothing more. */
    @Test
    void aShareContainerWhoseMemberDied_isReportedStoppedAbnormally() throws Exception {
        String topic = ShareKafka.topic(1);
        ShareKafka.shareGroup(group, Duration.ofSeconds(30), 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(ShareKafka.producerConfig())) {
            send(producer, topic, "order-1", "charge 1");
        }
        runner.withUserConfiguration(Failing.class)
                .withPropertyValues("test.topic=" + topic)
                .run(context -> {
                    InboxKafkaListeners listeners = context.getBean(InboxKafkaListeners.class);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!listeners.stoppedAbnormally().contains("share-failing")
                            && System.nanoTime() - deadline < 0) {
                        Thread.sleep(50);
                    }
                    assertThat(listeners.stoppedAbnormally()).containsExactly("share-failing");
                });
    }

    @Test
    void aShareListenerOnSpringsOwnShareContainer_failsTheStartup_sayingWhatToName() {
        runner.withUserConfiguration(OnSpringsShareContainer.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("share-undeduplicated")
                    .hasMessageContaining("inboxShareListenerContainerFactory")
                    .hasMessageContaining("inbox-spring-kafka-share");
        });
    }

    @Test
    void leftOutByListenerIds_theSameListenerStarts() {
        runner.withUserConfiguration(OnSpringsShareContainer.class)
                .withPropertyValues("inbox.kafka.listener-ids=someone-else")
                .run(context -> assertThat(context).hasNotFailed());
    }

    /** What spring-boot-starter-parent 4.0 gives: Spring Kafka 4.0, which has no ShareAckMode. */
    @Test
    void onSpringKafkaOlderThan4_1_theStartupFails_namingTheVersionToSet() {
        runner.withConfiguration(AutoConfigurations.of(InboxShareAutoConfiguration.SpringKafkaTooOld.class))
                .withClassLoader(new FilteredClassLoader(ContainerProperties.ShareAckMode.class))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("Spring Kafka 4.1")
                            .hasMessageContaining("spring-kafka.version");
                });
    }

    @Test
    void onSpringKafka4_1_theTooOldCheckStaysQuiet() {
        runner.withConfiguration(AutoConfigurations.of(InboxShareAutoConfiguration.SpringKafkaTooOld.class))
                .run(context -> assertThat(context).hasNotFailed().hasBean(InboxShareAutoConfiguration.FACTORY));
    }

    @Test
    void withTheKafkaListenersOff_thereIsNoFactory() {
        runner.withPropertyValues("inbox.kafka.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(InboxShareAutoConfiguration.FACTORY));
    }

    private static void send(KafkaProducer<String, String> producer, String topic, String id, String value)
            throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, null, value);
        record.headers().add("event-id", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get(30, TimeUnit.SECONDS);
    }
}
