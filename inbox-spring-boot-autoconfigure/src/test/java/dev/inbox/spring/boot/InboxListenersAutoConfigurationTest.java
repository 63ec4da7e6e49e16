package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.spring.kafka.CommitsAfterTransaction;
import dev.inbox.testing.KafkaBroker;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.FanoutExchange;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * A Boot application's own {@code @KafkaListener} and {@code @RabbitListener} methods, deduplicated by
 * nothing but the starter's auto-configuration, against the real brokers and PostgreSQL.
 */
class InboxListenersAutoConfigurationTest {

    static final String APPLIED = "inbox_boot_applied";

    /**
     * The application: two Kafka listeners in different consumer groups (one a batch listener) and
     * two RabbitMQ listeners on queues a fanout exchange feeds, so every listener receives every event.
     */
    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        final List<String> orders = new CopyOnWriteArrayList<>();
        final List<String> audit = new CopyOnWriteArrayList<>();
        final List<String> ordersRabbit = new CopyOnWriteArrayList<>();
        final List<String> auditRabbit = new CopyOnWriteArrayList<>();

        @Bean
        NewTopic topic(org.springframework.core.env.Environment environment) {
            return new NewTopic(environment.getRequiredProperty("test.topic"), 1, (short) 1);
        }

        @Bean
        Declarables fanout(org.springframework.core.env.Environment environment) {
            String name = environment.getRequiredProperty("test.queue");
            FanoutExchange exchange = new FanoutExchange(name, false, true);
            Queue orders = new Queue(name + "-orders", false, false, true);
            Queue audit = new Queue(name + "-audit", false, false, true);
            return new Declarables(
                    exchange,
                    orders,
                    audit,
                    BindingBuilder.bind(orders).to(exchange),
                    BindingBuilder.bind(audit).to(exchange));
        }

        @KafkaListener(id = "orders-kafka", topics = "${test.topic}")
        void onOrders(String event) {
            orders.add(event);
        }

        @KafkaListener(id = "audit-kafka", topics = "${test.topic}", batch = "true")
        void onAudit(List<String> events) {
            audit.addAll(events);
        }

        @RabbitListener(id = "orders-rabbit", queues = "${test.queue}-orders")
        void onOrdersRabbit(String event) {
            ordersRabbit.add(event);
        }

        @RabbitListener(id = "audit-rabbit", queues = "${test.queue}-audit")
        void onAuditRabbit(String event) {
            auditRabbit.add(event);
        }
    }

    /** The same application writing to PostgreSQL, in the listener's transaction when transactional. */
    @Configuration(proxyBeanMethods = false)
    @Import(PostgresDataSourceConfiguration.class)
    static class WritingListeners {

        @Bean
        NewTopic topic(org.springframework.core.env.Environment environment) {
            return new NewTopic(environment.getRequiredProperty("test.topic"), 1, (short) 1);
        }

        @Bean
        Queue queue(org.springframework.core.env.Environment environment) {
            return new Queue(environment.getRequiredProperty("test.queue"), false, false, true);
        }

        @Bean
        Writer writer(JdbcTemplate jdbc, org.springframework.core.env.Environment environment) {
            jdbc.execute("CREATE TABLE IF NOT EXISTS " + APPLIED + " (run text, event text)");
            return new Writer(jdbc, environment.getRequiredProperty("test.run"));
        }
    }

    record Writer(JdbcTemplate jdbc, String run) {

        @KafkaListener(id = "writer-kafka", topics = "${test.topic}")
        void onKafka(String event) {
            write(event);
        }

        @RabbitListener(id = "writer-rabbit", queues = "${test.queue}")
        void onRabbit(String event) {
            write(event);
        }

        void write(String event) {
            jdbc.update("INSERT INTO " + APPLIED + " VALUES (?, ?)", run, event);
            if (event.endsWith("!")
                    && !jdbc.queryForList(
                                    "SELECT 1 FROM " + APPLIED + " WHERE run = ? AND event = ?",
                                    run,
                                    "failed-once-" + event)
                            .isEmpty()) {
                return;
            }
            if (event.endsWith("!")) {
                // Outside the listener's transaction: remembers that this event failed once.
                try (var c = jdbc.getDataSource().getConnection();
                        var s = c.prepareStatement("INSERT INTO " + APPLIED + " VALUES (?, ?)")) {
                    s.setString(1, run);
                    s.setString(2, "failed-once-" + event);
                    s.executeUpdate();
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
                throw new IllegalStateException("the listener failed after its write");
            }
        }

        Map<String, Long> applications() {
            return jdbc
                    .queryForList(
                            "SELECT event FROM " + APPLIED + " WHERE run = ? AND event NOT LIKE 'failed-once-%'",
                            String.class,
                            run)
                    .stream()
                    .collect(Collectors.groupingBy(e -> e, Collectors.counting()));
        }
    }

    private final String run = UUID.randomUUID().toString();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    KafkaAutoConfiguration.class, RabbitAutoConfiguration.class, InboxAutoConfiguration.class))
            .withPropertyValues(
                    "spring.application.name=orders-" + run,
                    "test.run=" + run,
                    "test.topic=inbox-boot-" + run,
                    "test.queue=inbox-boot-" + run,
                    "spring.kafka.bootstrap-servers=" + KafkaBroker.bootstrap(),
                    "spring.kafka.consumer.group-id=group-" + run,
                    "spring.kafka.consumer.auto-offset-reset=earliest",
                    "spring.kafka.consumer.properties.group.protocol=consumer",
                    "spring.kafka.listener.poll-timeout=100ms",
                    "spring.rabbitmq.addresses=" + TestServers.rabbitmq(),
                    "inbox.kafka.busy-backoff=100ms",
                    "inbox.rabbit.busy-backoff=100ms");

    private static void send(KafkaTemplate<Object, Object> kafka, String topic, String... events) throws Exception {
        for (String event : events) {
            ProducerRecord<Object, Object> record = new ProducerRecord<>(topic, event);
            record.headers().add("ce_id", event.getBytes(StandardCharsets.UTF_8));
            record.headers().add("ce_source", "/orders".getBytes(StandardCharsets.UTF_8));
            kafka.send(record).get(30, TimeUnit.SECONDS);
        }
    }

    private static void send(RabbitTemplate rabbit, String queue, String... events) {
        for (String event : events) {
            MessageProperties properties = new MessageProperties();
            properties.setMessageId(event);
            rabbit.send(
                    "",
                    queue,
                    new org.springframework.amqp.core.Message(event.getBytes(StandardCharsets.UTF_8), properties));
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline)
                    .as("waited 60 s for: %s", what)
                    .isTrue();
            Thread.sleep(25);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyListener_seesEachEventOnce_withNothingButTheStarter() throws Exception {
        runner.withUserConfiguration(Listeners.class)
                .withPropertyValues("inbox.store=memory")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ConsumerFactory.class).getPostProcessors())
                            .as("lease mode leaves the consumer factory as it is")
                            .noneMatch(CommitsAfterTransaction.class::isInstance);
                    Listeners listeners = context.getBean(Listeners.class);
                    String topic = context.getEnvironment().getProperty("test.topic");
                    String queue = context.getEnvironment().getProperty("test.queue");
                    context.getBean(RabbitAdmin.class).initialize();
                    send(context.getBean(KafkaTemplate.class), topic, "k1", "k2", "k1", "k3", "k2");
                    RabbitTemplate rabbit = context.getBean(RabbitTemplate.class);
                    for (String event : List.of("r1", "r2", "r1", "r3", "r2")) {
                        MessageProperties properties = new MessageProperties();
                        properties.setMessageId(event);
                        rabbit.send(
                                queue,
                                "",
                                new org.springframework.amqp.core.Message(
                                        event.getBytes(StandardCharsets.UTF_8), properties));
                    }
                    InboxKafkaListeners kafka = context.getBean(InboxKafkaListeners.class);
                    InboxRabbitListeners advice = context.getBean(InboxRabbitListeners.class);
                    await("the Kafka records, in both groups", () -> kafka.processed() + kafka.duplicates() == 10);
                    await(
                            "the RabbitMQ messages, on both queues",
                            () -> advice.advice() != null
                                    && advice.advice().counts().processed()
                                                    + advice.advice().counts().duplicates()
                                            == 10);
                    assertThat(listeners.orders).containsExactly("k1", "k2", "k3");
                    assertThat(listeners.audit)
                            .as("a batch listener of another group")
                            .containsExactly("k1", "k2", "k3");
                    assertThat(listeners.ordersRabbit).containsExactly("r1", "r2", "r3");
                    assertThat(listeners.auditRabbit).as("another queue").containsExactly("r1", "r2", "r3");
                });
    }

    @Test
    @SuppressWarnings("unchecked")
    void transactionalListeners_applyEachEventOnce_evenWhenTheyFailAfterTheirWrite() throws Exception {
        runner.withUserConfiguration(WritingListeners.class)
                .withConfiguration(AutoConfigurations.of(
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
                .withPropertyValues(
                        "inbox.create-schema=true",
                        "inbox.jdbc.table=inbox_boot",
                        "inbox.kafka.transactional=true",
                        "inbox.rabbit.transactional=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ConsumerFactory.class).getPostProcessors())
                            .as("the consumer factory's post-processors: offsets committed after the transaction")
                            .hasAtLeastOneElementOfType(CommitsAfterTransaction.class);
                    Writer writer = context.getBean(Writer.class);
                    String topic = context.getEnvironment().getProperty("test.topic");
                    String queue = context.getEnvironment().getProperty("test.queue");
                    context.getBean(RabbitAdmin.class).initialize();
                    send(context.getBean(KafkaTemplate.class), topic, "k1", "k2!", "k1", "k3", "k2!");
                    send(context.getBean(RabbitTemplate.class), queue, "r1", "r2!", "r1", "r3", "r2!");
                    await("every event applied", () -> writer.applications().size() == 6);
                    Thread.sleep(500); // a late second application would show
                    assertThat(writer.applications())
                            .containsOnlyKeys("k1", "k2!", "k3", "r1", "r2!", "r3")
                            .allSatisfy((event, times) ->
                                    assertThat(times).as(event).isEqualTo(1L));
                });
    }
}
