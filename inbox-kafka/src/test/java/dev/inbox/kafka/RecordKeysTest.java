package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ExpiredCopyException;
import dev.inbox.keys.DedupKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Where each key source finds a record's id, on records as the consumer hands them over. */
class RecordKeysTest {

    private static ConsumerRecord<Object, Object> record(Object key, Object value, String... headers) {
        RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < headers.length; i += 2) {
            h.add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return new ConsumerRecord<>(
                "orders", 3, 1042L, 0L, TimestampType.CREATE_TIME, -1, -1, key, value, h, Optional.empty());
    }

    @Test
    void cloudEvents_binaryModeHeaders_andStructuredModeJson_giveTheSameId() {
        String id = DedupKeys.cloudEvent("/orders", "A-1");
        assertThat(RecordKeys.cloudEvents().keyOf(record(null, "{}", "ce_id", "A-1", "ce_source", "/orders")))
                .isEqualTo(id);
        String structured = "{\"specversion\":\"1.0\",\"id\":\"A-1\",\"source\":\"/orders\",\"type\":\"t\"}";
        assertThat(RecordKeys.cloudEvents()
                        .keyOf(record(null, structured, "content-type", "application/cloudevents+json; charset=UTF-8")))
                .isEqualTo(id);
        assertThat(RecordKeys.cloudEvents()
                        .keyOf(record(
                                null,
                                structured.getBytes(StandardCharsets.UTF_8),
                                "content-type",
                                "application/cloudevents+json")))
                .as("a byte[] value")
                .isEqualTo(id);
        assertThat(RecordKeys.cloudEvents().keyOf(record(null, structured)))
                .as("JSON without the structured-mode content type is not a CloudEvent")
                .isNull();
        assertThat(RecordKeys.cloudEvents().keyOf(record(null, "{}", "ce_id", "A-1")))
                .as("an id without its source")
                .isNull();
    }

    @Test
    void refusingCopiesOlderThan_refusesByTheRecordsTimestamp_andAdmitsOneWithout() {
        RecordKeys keys = RecordKeys.header("event-id").refusingCopiesOlderThan(Duration.ofHours(1));
        long now = System.currentTimeMillis();
        assertThat(keys.keyOf(stamped(now - Duration.ofMinutes(59).toMillis()))).isEqualTo(DedupKeys.eventId("e1"));
        assertThatThrownBy(() -> keys.keyOf(stamped(now - Duration.ofMinutes(61).toMillis())))
                .isInstanceOf(ExpiredCopyException.class)
                .hasMessageContaining("record orders-3@1042")
                .hasMessageContaining("EXPIRED");
        assertThat(keys.keyOf(stamped(ConsumerRecord.NO_TIMESTAMP)))
                .as("no timestamp: cannot be judged, admitted")
                .isEqualTo(DedupKeys.eventId("e1"));
        assertThatThrownBy(() -> RecordKeys.offset().refusingCopiesOlderThan(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RecordKeys.offset().refusingCopiesOlderThan(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static ConsumerRecord<Object, Object> stamped(long timestamp) {
        RecordHeaders h = new RecordHeaders();
        h.add("event-id", "e1".getBytes(StandardCharsets.UTF_8));
        return new ConsumerRecord<>(
                "orders", 3, 1042L, timestamp, TimestampType.CREATE_TIME, -1, -1, null, "{}", h, Optional.empty());
    }

    @Test
    void debeziumOutbox_isTheIdHeader_andHeaderTakesTheLastValue() {
        assertThat(RecordKeys.debeziumOutbox().keyOf(record("order-42", "{}", "id", "0b4c1e2a")))
                .isEqualTo(DedupKeys.eventId("0b4c1e2a"));
        assertThat(RecordKeys.header("event-id").keyOf(record(null, "{}", "event-id", "1", "event-id", "2")))
                .isEqualTo(DedupKeys.eventId("2"));
        assertThat(RecordKeys.header("event-id").keyOf(record(null, "{}", "event-id", "")))
                .isNull();
        assertThatThrownBy(() -> RecordKeys.header("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void recordKey_stringOrUtf8Bytes_elseNone() {
        assertThat(RecordKeys.recordKey().keyOf(record("evt-7", "{}"))).isEqualTo(DedupKeys.eventId("evt-7"));
        assertThat(RecordKeys.recordKey().keyOf(record("evt-7".getBytes(StandardCharsets.UTF_8), "{}")))
                .isEqualTo(DedupKeys.eventId("evt-7"));
        assertThat(RecordKeys.recordKey().keyOf(record(42L, "{}")))
                .as("a key of another type")
                .isNull();
        assertThat(RecordKeys.recordKey().keyOf(record(null, "{}"))).isNull();
    }

    @Test
    void jsonContentHash_ignoresOrderAndVolatileFields_andIsNoneForNonJson() {
        String a = RecordKeys.jsonContentHash("/sent_at").keyOf(record(null, "{\"n\":1,\"sent_at\":\"x\"}"));
        String b = RecordKeys.jsonContentHash("/sent_at").keyOf(record(null, "{ \"sent_at\":\"y\", \"n\":1.0 }"));
        assertThat(a).startsWith("sha256:").isEqualTo(b);
        assertThat(RecordKeys.jsonContentHash().keyOf(record(null, "not json"))).isNull();
    }

    @Test
    void offset_isTheRecordsPlaceInTheLog() {
        assertThat(RecordKeys.offset().keyOf(record(null, "{}"))).isEqualTo(DedupKeys.kafka("orders", 3, 1042));
    }

    @Test
    void firstOf_takesTheFirstSourceWithAnId_andStandardPrefersCloudEvents() {
        ConsumerRecord<Object, Object> both = record(null, "{}", "id", "outbox-1", "ce_id", "A-1", "ce_source", "/s");
        assertThat(RecordKeys.standard().keyOf(both)).isEqualTo(DedupKeys.cloudEvent("/s", "A-1"));
        assertThat(RecordKeys.standard().keyOf(record(null, "{}", "id", "outbox-1")))
                .isEqualTo(DedupKeys.eventId("outbox-1"));
        assertThat(RecordKeys.standard().keyOf(record(null, "{}"))).isNull();
        assertThat(RecordKeys.firstOf(RecordKeys.header("x"), RecordKeys.offset())
                        .keyOf(record(null, "{}")))
                .isEqualTo(DedupKeys.kafka("orders", 3, 1042));
    }

    @Test
    void anIdTooLongForAKey_isRejected_soTheLoopTreatsTheRecordAsKeyless() {
        assertThatThrownBy(() -> RecordKeys.header("id").keyOf(record(null, "{}", "id", "x".repeat(600))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
