package dev.inbox.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestFingerprintTest {

    private static String of(String method, String path, String query, String type, String body) {
        return RequestFingerprint.of(new IdempotentRequest(
                method, path, query, type, "k", null, name -> null, body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void jsonCountsByItsCanonicalForm() {
        String first = of("POST", "/p", null, "application/json", "{\"a\":1,\"b\":[true,null]}");
        assertThat(of(
                        "POST",
                        "/p",
                        null,
                        "application/json; charset=UTF-8",
                        " { \"b\" : [ true , null ], \"a\" : 1.0 } "))
                .isEqualTo(first);
        assertThat(of("POST", "/p", null, "application/vnd.api+json", "{\"b\":[true,null],\"a\":1}"))
                .isEqualTo(first);
        assertThat(of("POST", "/p", null, "application/json", "{\"a\":2,\"b\":[true,null]}"))
                .isNotEqualTo(first);
    }

    @Test
    void otherBodies_andJsonThatDoesNotParse_countByteForByte() {
        assertThat(of("POST", "/p", null, "text/plain", "{\"a\":1}"))
                .isNotEqualTo(of("POST", "/p", null, "text/plain", "{ \"a\":1}"));
        assertThat(of("POST", "/p", null, "application/json", "{not json"))
                .isEqualTo(of("POST", "/p", null, "application/json", "{not json"))
                .isNotEqualTo(of("POST", "/p", null, "application/json", "{not json "));
    }

    @Test
    void theMethodPathAndQueryCount_andPartsNeverRunTogether() {
        String base = of("POST", "/p", "a=1", "text/plain", "x");
        assertThat(of("PATCH", "/p", "a=1", "text/plain", "x")).isNotEqualTo(base);
        assertThat(of("POST", "/q", "a=1", "text/plain", "x")).isNotEqualTo(base);
        assertThat(of("POST", "/p", "a=2", "text/plain", "x")).isNotEqualTo(base);
        assertThat(of("POST", "/p", null, "text/plain", "x"))
                .as("/p and /p? are one request")
                .isEqualTo(of("POST", "/p", "", "text/plain", "x"));
        assertThat(of("POST", "/pa", null, "text/plain", "x")).isNotEqualTo(of("POST", "/p", "a", "text/plain", "x"));
        assertThat(base).startsWith("sha256:").hasSize(7 + 64);
    }
}
