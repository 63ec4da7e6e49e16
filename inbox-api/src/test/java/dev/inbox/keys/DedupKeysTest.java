package dev.inbox.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DedupKeysTest {

    @Test
    void kafka_isTopicPartitionOffset() {
        assertThat(DedupKeys.kafka("orders.v1", 3, 42L)).isEqualTo("kafka:orders.v1:3:42");
        assertThatThrownBy(() -> DedupKeys.kafka("bad topic", 0, 0)).hasMessageContaining("Kafka topic");
        assertThatThrownBy(() -> DedupKeys.kafka("t", -1, 0)).hasMessageContaining("partition");
        assertThatThrownBy(() -> DedupKeys.kafka("t", 0, -1)).hasMessageContaining("offset");
    }

    @Test
    void brokerIds_havePrefixesSoSourcesNeverCollide() {
        assertThat(DedupKeys.sqs("abc")).isEqualTo("sqs:abc");
        assertThat(DedupKeys.amqp("abc")).isEqualTo("amqp:abc");
        assertThat(DedupKeys.sns("abc")).isEqualTo("sns:abc");
        assertThatThrownBy(() -> DedupKeys.sns(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(DedupKeys.business("kafka", "t", "0", "1")).isNotEqualTo(DedupKeys.kafka("t", 0, 1));
        assertThatThrownBy(() -> DedupKeys.sqs("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DedupKeys.sqs("x".repeat(600))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void business_joinsPartsUnambiguously() {
        assertThat(DedupKeys.business("a:b", "c")).isNotEqualTo(DedupKeys.business("a", "b:c"));
        assertThat(DedupKeys.business("a\\", "b")).isNotEqualTo(DedupKeys.business("a", "\\b"));
        assertThat(DedupKeys.business("a\\:", "b")).isNotEqualTo(DedupKeys.business("a\\", ":b"));
        assertThat(DedupKeys.business("a", "")).isNotEqualTo(DedupKeys.business("a"));
        assertThat(DedupKeys.business("", "a")).isNotEqualTo(DedupKeys.business("a", ""));
        assertThat(DedupKeys.business("order-1", "shipped", "3")).isEqualTo("key:order-1:shipped:3");
        assertThatThrownBy(DedupKeys::business).hasMessageContaining("at least one part");
        assertThatThrownBy(() -> DedupKeys.business("a", null)).hasMessage("parts[1] must not be null");
    }

    @Test
    void contentHash_ignoresOrderSpellingWhitespaceAndVolatileFields() {
        String first =
                "{\"order\":42,\"amount\":10.50,\"published_at\":\"2026-11-30T10:00:00Z\",\"meta\":{\"trace_id\":\"a\"}}";
        String redelivered = "{ \"meta\": {\"trace_id\": \"b\"}, \"amount\": 1.05e1, \"order\": 42.0,"
                + " \"published_at\": \"2026-11-30T10:05:00Z\" }";
        String h1 = DedupKeys.contentHash(first, "/published_at", "/meta/trace_id");
        assertThat(h1).isEqualTo(DedupKeys.contentHash(redelivered, "/published_at", "/meta/trace_id"));
        assertThat(h1).startsWith("sha256:").hasSize(7 + 64);
        assertThat(h1).isNotEqualTo(DedupKeys.contentHash(first)).as("volatile fields count unless removed");
        assertThat(h1)
                .isNotEqualTo(
                        DedupKeys.contentHash(first.replace("10.50", "10.51"), "/published_at", "/meta/trace_id"));
    }

    @Test
    void sha256_isOverUtf8() {
        // echo -n 'abc' | sha256sum
        assertThat(DedupKeys.sha256("abc"))
                .isEqualTo("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(DedupKeys.contentHash("{\"b\":1,\"a\":\"\u00e9\"}"))
                .isEqualTo(DedupKeys.sha256("{\"a\":\"\u00e9\",\"b\":1}"));
    }

    @Test
    void cloudEvent_isSourceAndIdInBothModes() {
        String binary = DedupKeys.cloudEvent("/orders/eu", "A-1");
        assertThat(binary).isEqualTo("ce:/orders/eu:A-1");
        String structured =
                DedupKeys.cloudEventJson("{\"specversion\":\"1.0\",\"id\":\"A-1\",\"source\":\"/orders/eu\","
                        + "\"type\":\"order.placed\",\"time\":\"2026-12-01T10:00:00Z\",\"data\":{\"n\":1}}");
        assertThat(structured)
                .as("structured mode: the same event, the same id")
                .isEqualTo(binary);
        assertThat(DedupKeys.cloudEvent("/orders/eu:A", "1"))
                .as("a colon inside a part cannot make two events collide")
                .isNotEqualTo(DedupKeys.cloudEvent("/orders/eu", "A:1"));
        assertThat(DedupKeys.cloudEvent("s", "1")).isNotEqualTo(DedupKeys.business("s", "1"));
        assertThatThrownBy(() -> DedupKeys.cloudEvent("", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DedupKeys.cloudEvent("s", null)).isInstanceOf(IllegalArgumentException.class);
        for (String bad : new String[] {
            "[1]", "{\"id\":\"1\"}", "{\"id\":1,\"source\":\"s\"}", "not json", "{\"id\":\"\",\"source\":\"s\"}"
        }) {
            assertThatThrownBy(() -> DedupKeys.cloudEventJson(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void eventId_isTheProducersIdUnderItsOwnPrefix() {
        assertThat(DedupKeys.eventId("0b4c1e2a-outbox")).isEqualTo("id:0b4c1e2a-outbox");
        assertThat(DedupKeys.eventId("42")).isNotEqualTo(DedupKeys.amqp("42")).isNotEqualTo(DedupKeys.sqs("42"));
        assertThatThrownBy(() -> DedupKeys.eventId("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DedupKeys.eventId("x".repeat(600))).isInstanceOf(IllegalArgumentException.class);
    }
}
