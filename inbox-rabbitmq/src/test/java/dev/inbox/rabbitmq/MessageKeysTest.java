package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a delivery's key comes from, on deliveries built as amqp-client hands them over. */
class MessageKeysTest {

    private static Delivery delivery(AMQP.BasicProperties properties, String body) {
        return new Delivery(new Envelope(1, false, "", "q"), properties, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void refusingCopiesOlderThan_refusesByTheAmqpTimestamp_andAdmitsAMessageWithout() {
        MessageKeys keys = MessageKeys.messageId().refusingCopiesOlderThan(Duration.ofHours(1));
        long now = System.currentTimeMillis();
        assertThat(keys.keyOf(stamped(new Date(now - Duration.ofMinutes(59).toMillis()))))
                .isEqualTo(DedupKeys.amqp("m-1"));
        assertThatThrownBy(() ->
                        keys.keyOf(stamped(new Date(now - Duration.ofMinutes(61).toMillis()))))
                .isInstanceOf(ExpiredCopyException.class)
                .hasMessageContaining("message m-1")
                .hasMessageContaining("EXPIRED");
        assertThat(keys.keyOf(stamped(null))).as("no timestamp: admitted").isEqualTo(DedupKeys.amqp("m-1"));
        assertThatThrownBy(() -> MessageKeys.messageId().refusingCopiesOlderThan(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static Delivery stamped(Date timestamp) {
        return delivery(
                new AMQP.BasicProperties.Builder()
                        .messageId("m-1")
                        .timestamp(timestamp)
                        .build(),
                "{}");
    }

    @Test
    void aHeader_givesTheSameKeyAsKafkasHeaderAndSqsAttributeForTheSameProducerId() {
        Delivery withId = delivery(
                new AMQP.BasicProperties.Builder()
                        .headers(Map.of("event-id", "evt-9"))
                        .build(),
                "{}");
        // RecordKeys.header("event-id") and SqsKeys.attribute("event-id") give DedupKeys.eventId of the value.
        assertThat(MessageKeys.header("event-id").keyOf(withId)).isEqualTo(DedupKeys.eventId("evt-9"));
        assertThat(MessageKeys.header("other").keyOf(withId)).isNull();
        assertThat(MessageKeys.header("event-id").keyOf(delivery(new AMQP.BasicProperties(), "{}")))
                .isNull();
        assertThatThrownBy(() -> MessageKeys.header("event-id")
                        .keyOf(delivery(
                                new AMQP.BasicProperties.Builder()
                                        .headers(Map.of("event-id", "x".repeat(600)))
                                        .build(),
                                "{}")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theStandardKeys_areTheMessageIdElseTheDebeziumOutboxId_neverTheContent() {
        Delivery withMessageId =
                delivery(new AMQP.BasicProperties.Builder().messageId("m-1").build(), "{\"a\":1}");
        Delivery outbox = delivery(
                new AMQP.BasicProperties.Builder()
                        .headers(Map.of("id", "outbox-7"))
                        .build(),
                "{\"a\":1}");
        Delivery json = delivery(new AMQP.BasicProperties(), "{ \"a\" : 1 }");
        assertThat(MessageKeys.standard().keyOf(withMessageId)).isEqualTo("amqp:m-1");
        assertThat(MessageKeys.standard().keyOf(outbox)).isEqualTo(DedupKeys.eventId("outbox-7"));
        assertThat(MessageKeys.debeziumOutbox().keyOf(outbox)).isEqualTo(DedupKeys.eventId("outbox-7"));
        assertThat(MessageKeys.standard().keyOf(json))
                .as("a message without a producer id: two identical orders must not become one event")
                .isNull();
        assertThat(MessageKeys.jsonContentHash().keyOf(json))
                .as("the content hash, chosen explicitly")
                .isEqualTo(DedupKeys.contentHash("{\"a\":1}"));
    }
}
