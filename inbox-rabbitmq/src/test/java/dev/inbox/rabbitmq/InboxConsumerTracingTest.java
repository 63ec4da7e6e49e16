package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.testing.TestServers;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.test.reporter.BuildingBlocks;
import io.micrometer.tracing.test.reporter.inmemory.InMemoryBraveSetup;
import io.micrometer.tracing.test.reporter.inmemory.InMemoryOtelSetup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One event traced from the producer through a real RabbitMQ broker into the inbox: the producer's
 * trace context travels in the message's headers, and the consumer's receive, claim, work and
 * completion are spans of that same trace, nested as they ran. Run through the OpenTelemetry bridge
 * and through Brave, each with Micrometer Tracing's in-memory test setup (the tracing handlers on an
 * observation registry, and the finished spans).
 */
class InboxConsumerTracingTest {

    @Test
    void throughTheOpenTelemetryBridge() {
        ObservationRegistry registry = ObservationRegistry.create();
        InMemoryOtelSetup.run(registry, blocks -> traced(blocks, registry, false));
    }

    @Test
    void throughBrave() {
        ObservationRegistry registry = ObservationRegistry.create();
        InMemoryBraveSetup.run(registry, blocks -> traced(blocks, registry, false));
    }

    /**
     * Transactional mode on PostgreSQL: the claim inside the work's transaction, the work, and the
     * commit (the {@code complete} step: it is what records the event) in the producer's trace.
     */
    @Test
    void transactionalMode_throughTheOpenTelemetryBridge() {
        ObservationRegistry registry = ObservationRegistry.create();
        InMemoryOtelSetup.run(registry, blocks -> traced(blocks, registry, true));
    }

    private static void traced(BuildingBlocks blocks, ObservationRegistry registry, boolean transactional) {
        try {
            scenario(blocks, registry, transactional);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void scenario(BuildingBlocks blocks, ObservationRegistry registry, boolean transactional)
            throws Exception {
        {
            String consumer = "traced-" + UUID.randomUUID();
            String queue = "inbox-traced-" + UUID.randomUUID();
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(TestServers.rabbitmq());
            try (Connection connection = factory.newConnection("inbox-tracing-test");
                    CaffeineInboxStore memory = CaffeineInboxStore.builder().build();
                    HikariDataSource pool = transactional ? pool() : null;
                    PostgresInboxStore postgres = transactional ? postgres(pool) : null) {
                Channel channel = connection.createChannel();
                channel.queueDeclare(queue, false, false, true, null);
                String[] workTrace = new String[1];
                MessageHandler work = delivery -> {
                    Span current = blocks.getTracer().currentSpan();
                    workTrace[0] = current == null ? null : current.context().traceId();
                };
                InboxConsumer inboxConsumer = postgres == null
                        ? InboxConsumer.builder(
                                        channel,
                                        Inbox.builder(memory)
                                                .consumer(consumer)
                                                .lease(Duration.ofSeconds(30))
                                                .observer(ObservationInboxObserver.of(registry))
                                                .build(),
                                        work)
                                .build()
                        : InboxConsumer.transactional(
                                        channel,
                                        TransactionalInbox.builder(postgres, pool)
                                                .consumer(consumer)
                                                .observer(ObservationInboxObserver.of(registry))
                                                .build(),
                                        (delivery, db) -> work.handle(delivery))
                                .build();
                channel.basicConsume(queue, false, inboxConsumer);

                // The producer: a span whose context goes into the message headers, twice (a re-send).
                Span publish =
                        blocks.getTracer().nextSpan().name("orders publish").start();
                Map<String, Object> headers = new HashMap<>();
                blocks.getPropagator()
                        .inject(publish.context(), headers, (carrier, key, value) -> carrier.put(key, value));
                publish.end();
                for (int i = 0; i < 2; i++) {
                    channel.basicPublish(
                            "",
                            queue,
                            new AMQP.BasicProperties.Builder()
                                    .messageId("order-42")
                                    .headers(headers)
                                    .build(),
                            "order-42 shipped".getBytes(StandardCharsets.UTF_8));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (inboxConsumer.counts().acknowledged() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(inboxConsumer.counts().acknowledged())
                        .as("both deliveries settled")
                        .isEqualTo(2);

                String trace = publish.context().traceId();
                List<FinishedSpan> spans = blocks.getFinishedSpans().stream()
                        .filter(s -> s.getTraceId().equals(trace))
                        .toList();
                assertThat(spans)
                        .extracting(FinishedSpan::getName)
                        .as("spans of the producer's trace")
                        .contains("orders publish", "inbox claim", "inbox work", "inbox complete");
                assertThat(workTrace[0])
                        .as("the handler ran inside the producer's trace")
                        .isEqualTo(trace);

                FinishedSpan receive = spans.stream()
                        .filter(s -> s.getName().endsWith(" receive"))
                        .findFirst()
                        .orElseThrow();
                assertThat(receive.getParentId())
                        .as("receive's parent: the producer's span")
                        .isEqualTo(publish.context().spanId());
                for (String step : List.of("inbox claim", "inbox work", "inbox complete")) {
                    FinishedSpan span = spans.stream()
                            .filter(s -> s.getName().equals(step))
                            .findFirst()
                            .orElseThrow();
                    assertThat(span.getParentId())
                            .as("%s is a child of a receive span", step)
                            .isIn(spans.stream()
                                    .filter(s -> s.getName().endsWith(" receive"))
                                    .map(FinishedSpan::getSpanId)
                                    .toList());
                    assertThat(span.getTags())
                            .containsEntry("consumer", consumer)
                            .containsKey("store");
                }
                assertThat(spans.stream()
                                .filter(s -> s.getName().equals("inbox claim"))
                                .map(s -> s.getTags().get("outcome")))
                        .as("the first delivery acquired the key, the re-send was a duplicate")
                        .containsExactlyInAnyOrder("acquired", "duplicate");
                assertThat(spans.stream().filter(s -> s.getName().equals("inbox work")))
                        .as("the work ran once")
                        .hasSize(1)
                        .allSatisfy(s -> assertThat(s.getTags()).containsEntry("inbox.key", "amqp:order-42"));
                channel.basicCancel(inboxConsumer.getConsumerTag());
            }
        }
    }

    private static HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestServers.postgres());
        config.setMaximumPoolSize(2);
        return new HikariDataSource(config);
    }

    private static PostgresInboxStore postgres(HikariDataSource pool) {
        PostgresInboxStore store =
                PostgresInboxStore.builder(pool).table("inbox_rabbit_traced").build();
        store.createSchemaIfMissing();
        return store;
    }
}
