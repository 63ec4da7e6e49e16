package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** SNS envelopes and the keys, on messages built as the SDK would hand them over. */
class SqsMessageTest {

    private static Message message(String body, Map<String, MessageAttributeValue> attributes) {
        return Message.builder()
                .messageId("sqs-1")
                .receiptHandle("r")
                .body(body)
                .messageAttributes(attributes)
                .attributes(Map.of(
                        MessageSystemAttributeName.MESSAGE_GROUP_ID, "g",
                        MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT, "3"))
                .build();
    }

    private static MessageAttributeValue string(String value) {
        return MessageAttributeValue.builder()
                .dataType("String")
                .stringValue(value)
                .build();
    }

    @Test
    void refusingCopiesOlderThan_refusesBySentTimestamp_andAdmitsAMessageReceivedWithoutIt() {
        SqsKeys keys = SqsKeys.attribute("event-id").refusingCopiesOlderThan(Duration.ofHours(1));
        long now = System.currentTimeMillis();
        assertThat(keys.keyOf(sent(now - Duration.ofMinutes(59).toMillis()))).isEqualTo(DedupKeys.eventId("e1"));
        assertThat(sent(now).sentAt()).isEqualTo(Instant.ofEpochMilli(now));
        assertThatThrownBy(() -> keys.keyOf(sent(now - Duration.ofMinutes(61).toMillis())))
                .isInstanceOf(ExpiredCopyException.class)
                .hasMessageContaining("sqs-1")
                .hasMessageContaining("EXPIRED");
        SqsMessage unstamped = SqsMessage.of(message("{}", Map.of("event-id", string("e1"))));
        assertThat(unstamped.sentAt()).isNull();
        assertThat(keys.keyOf(unstamped)).as("no SentTimestamp: admitted").isEqualTo(DedupKeys.eventId("e1"));
        assertThatThrownBy(() -> SqsKeys.messageId().refusingCopiesOlderThan(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static SqsMessage sent(long millis) {
        return SqsMessage.of(Message.builder()
                .messageId("sqs-1")
                .receiptHandle("r")
                .body("{}")
                .messageAttributes(Map.of("event-id", string("e1")))
                .attributes(Map.of(MessageSystemAttributeName.SENT_TIMESTAMP, Long.toString(millis)))
                .build());
    }

    @Test
    void anSnsEnvelope_givesThePublishersBodyAttributesAndIds() {
        SqsMessage m = SqsMessage.of(
                message(SqsInboxLoopTest.snsEnvelope("sns-1", "{\"a\":\"b \\\" c\"}", "evt-1"), Map.of()));
        assertThat(m.isSnsNotification()).isTrue();
        assertThat(m.body()).isEqualTo("{\"a\":\"b \\\" c\"}");
        assertThat(m.attributes()).containsExactly(Map.entry("event-id", "evt-1"));
        assertThat(m.snsMessageId()).isEqualTo("sns-1");
        assertThat(m.topicArn()).isEqualTo("arn:aws:sns:us-east-1:123456789012:orders");
        assertThat(m.messageId()).isEqualTo("sqs-1");
        assertThat(m.groupId()).isEqualTo("g");
        assertThat(m.receiveCount()).isEqualTo(3);
    }

    @Test
    void anythingElse_isTakenAsItIs() {
        String notAnEnvelope = "{\"Type\":\"Notification\",\"note\":\"no MessageId, TopicArn or Message\"}";
        SqsMessage json = SqsMessage.of(message(notAnEnvelope, Map.of("event-id", string("e"))));
        assertThat(json.isSnsNotification()).isFalse();
        assertThat(json.body()).isEqualTo(notAnEnvelope);
        assertThat(json.attribute("event-id")).isEqualTo("e");

        SqsMessage text = SqsMessage.of(message(
                "{ \"Notification\" but not JSON",
                Map.of(
                        "bytes",
                        MessageAttributeValue.builder()
                                .dataType("Binary")
                                .binaryValue(SdkBytes.fromUtf8String("x"))
                                .build())));
        assertThat(text.isSnsNotification()).isFalse();
        assertThat(text.attributes()).as("binary attributes are left out").isEmpty();
        assertThatThrownBy(() -> SqsMessage.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keys_giveTheSameKeyAsTheOtherBrokersForTheSameProducerId() {
        SqsMessage raw = SqsMessage.of(message("{\"order\":1}", Map.of("event-id", string("evt-9"))));
        SqsMessage viaSns =
                SqsMessage.of(message(SqsInboxLoopTest.snsEnvelope("sns-9", "{\"order\":1}", "evt-9"), Map.of()));
        // RecordKeys.header("event-id") on Kafka gives DedupKeys.eventId of the header's value.
        assertThat(SqsKeys.attribute("event-id").keyOf(raw)).isEqualTo(DedupKeys.eventId("evt-9"));
        assertThat(SqsKeys.attribute("event-id").keyOf(viaSns)).isEqualTo(DedupKeys.eventId("evt-9"));
        assertThat(SqsKeys.snsMessageId().keyOf(viaSns)).isEqualTo("sns:sns-9");
        assertThat(SqsKeys.snsMessageId().keyOf(raw)).isNull();
        assertThat(SqsKeys.messageId().keyOf(raw)).isEqualTo("sqs:sqs-1");
        assertThat(SqsKeys.jsonContentHash().keyOf(raw))
                .isEqualTo(SqsKeys.jsonContentHash().keyOf(viaSns));
        assertThat(SqsKeys.jsonContentHash().keyOf(SqsMessage.of(message("not json", Map.of()))))
                .isNull();
        assertThat(SqsKeys.standard().keyOf(viaSns)).isEqualTo("sns:sns-9");
        assertThat(SqsKeys.standard().keyOf(raw))
                .as("a message without a producer id: two identical orders must not become one event")
                .isNull();
        SqsMessage outbox = SqsMessage.of(message("{\"order\":1}", Map.of("id", string("outbox-7"))));
        assertThat(SqsKeys.debeziumOutbox().keyOf(outbox)).isEqualTo(DedupKeys.eventId("outbox-7"));
        assertThat(SqsKeys.standard().keyOf(outbox)).isEqualTo(DedupKeys.eventId("outbox-7"));
        assertThatThrownBy(() -> SqsKeys.attribute("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cloudEvents_fromAttributesOrAStructuredBody() {
        SqsMessage binary = SqsMessage.of(message("{}", Map.of("ce_id", string("1"), "ce_source", string("/orders"))));
        SqsMessage structured = SqsMessage.of(
                message("{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/orders\",\"type\":\"t\"}", Map.of()));
        assertThat(SqsKeys.cloudEvents().keyOf(binary)).isEqualTo(DedupKeys.cloudEvent("/orders", "1"));
        assertThat(SqsKeys.cloudEvents().keyOf(structured)).isEqualTo(DedupKeys.cloudEvent("/orders", "1"));
        assertThat(SqsKeys.cloudEvents().keyOf(SqsMessage.of(message("{\"specversion\":\"1.0\"}", Map.of()))))
                .isNull();
    }
}
