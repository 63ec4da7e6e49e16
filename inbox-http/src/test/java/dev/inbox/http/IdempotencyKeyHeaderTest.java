package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IdempotencyKeyHeaderTest {

    @Test
    void aBareKey_andAStructuredFieldString_areBothTaken() {
        assertThat(IdempotencyKeyHeader.parse("8e03978e-40d5-43e8-bc93-6894a57f9324"))
                .isEqualTo("8e03978e-40d5-43e8-bc93-6894a57f9324");
        assertThat(IdempotencyKeyHeader.parse("\"8e03978e-40d5\"")).isEqualTo("8e03978e-40d5");
        assertThat(IdempotencyKeyHeader.parse(" \"with space and \\\"quote\\\" and \\\\\" "))
                .isEqualTo("with space and \"quote\" and \\");
        assertThat(IdempotencyKeyHeader.parse("k".repeat(255))).hasSize(255);
    }

    @Test
    void whatIsNotAKey_isRefusedWithASentenceForTheClient() {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(null)).hasMessageContaining("no Idempotency-Key");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("  ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("\"\"")).hasMessageContaining("empty");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("k".repeat(256))).hasMessageContaining("256 characters");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("two words")).hasMessageContaining("visible ASCII");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("caf\u00e9")).hasMessageContaining("visible ASCII");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("\"open")).hasMessageContaining("no closing quote");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("\"a\"b")).hasMessageContaining("after its closing quote");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("\"a\\nb\"")).hasMessageContaining("escape");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("\"tab\there\"")).hasMessageContaining("printable ASCII");
    }
}
