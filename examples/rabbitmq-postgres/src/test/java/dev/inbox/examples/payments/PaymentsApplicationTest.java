package dev.inbox.examples.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as it runs, on the real RabbitMQ and PostgreSQL: the producer re-sends payments, and
 * the ledger fails some deliveries after its row was written (RabbitMQ redelivers them) — and the
 * ledger holds every payment exactly once.
 */
@SpringBootTest
class PaymentsApplicationTest {

    private static final int PAYMENTS = 200;
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

    /** Every seventh payment fails its first delivery after the ledger row was written. */
    static final Set<String> FAILED_ONCE = ConcurrentHashMap.newKeySet();

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        String url = TestServers.postgres();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.rabbitmq.addresses", TestServers::rabbitmq);
        registry.add("inbox.rabbit.busy-backoff", () -> "100ms");
        // A queue of this run's own, so that no earlier run's messages are in it.
        registry.add("payments.queue", () -> "payments-" + RUN);
    }

    @TestConfiguration
    static class FailingLedger {

        @Bean
        @Primary
        Ledger failingLedger(JdbcTemplate jdbc) {
            return new Ledger(jdbc) {
                @Override
                public void post(String id, String account, long cents) {
                    super.post(id, account, cents);
                    if (id.endsWith("7") && FAILED_ONCE.add(id)) {
                        throw new IllegalStateException("the service failed after writing " + id);
                    }
                }
            };
        }
    }

    @Autowired
    RabbitTemplate rabbit;

    @Autowired
    RabbitAdmin admin;

    @Autowired
    JdbcTemplate jdbc;

    @org.springframework.beans.factory.annotation.Value("${payments.queue}")
    String queue;

    private void publish(int i) {
        MessageProperties properties = new MessageProperties();
        properties.setMessageId("pay-" + RUN + "-" + i);
        rabbit.send(
                "",
                queue,
                new Message(("acct-" + (i % 7) + ":" + (100 + i)).getBytes(StandardCharsets.UTF_8), properties));
    }

    private Map<String, Long> ledger() {
        return jdbc
                .queryForList(
                        "SELECT payment_id FROM ledger WHERE payment_id LIKE ?", String.class, "pay-" + RUN + "-%")
                .stream()
                .collect(Collectors.groupingBy(id -> id, Collectors.counting()));
    }

    @Test
    void resentAndRedeliveredPayments_arePostedExactlyOnce() throws InterruptedException {
        IntStream.range(0, PAYMENTS).forEach(this::publish);
        IntStream.range(0, PAYMENTS).filter(i -> i % 3 == 0).forEach(this::publish); // the producer's re-sends

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while ((ledger().size() < PAYMENTS || admin.getQueueInfo(queue).getMessageCount() > 0)
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        Thread.sleep(500); // a late second posting would show

        assertThat(FAILED_ONCE)
                .as("deliveries that failed after their write and were redelivered")
                .hasSize(20);
        Map<String, Long> ledger = ledger();
        assertThat(ledger).hasSize(PAYMENTS);
        assertThat(ledger).allSatisfy((id, rows) -> assertThat(rows).as(id).isEqualTo(1L));
    }
}
