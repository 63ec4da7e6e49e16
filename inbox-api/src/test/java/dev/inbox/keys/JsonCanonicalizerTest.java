package dev.inbox.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Against the examples and test vectors of RFC 8785 itself. */
class JsonCanonicalizerTest {

    @Test
    void rfc8785_section_3_2_2_example() {
        String input = "{\n"
                + "  \"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n"
                + "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
                + "  \"literals\": [null, true, false]\n"
                + "}";
        assertThat(JsonCanonicalizer.canonicalize(input))
                .isEqualTo("{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                        + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
    }

    @Test
    void rfc8785_section_3_2_3_sortsByUtf16CodeUnits() {
        String input = "{\n"
                + "  \"\\u20ac\": \"Euro Sign\",\n"
                + "  \"\\r\": \"Carriage Return\",\n"
                + "  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n"
                + "  \"1\": \"One\",\n"
                + "  \"\\ud83d\\ude00\": \"Emoji: Grinning Face\",\n"
                + "  \"\\u0080\": \"Control\",\n"
                + "  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"\n"
                + "}";
        assertThat(JsonCanonicalizer.canonicalize(input))
                .isEqualTo("{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\","
                        + "\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\","
                        + "\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}");
    }

    /** RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0000000000000000, 0",
        "8000000000000000, 0",
        "0000000000000001, 5e-324",
        "8000000000000001, -5e-324",
        "7fefffffffffffff, 1.7976931348623157e+308",
        "ffefffffffffffff, -1.7976931348623157e+308",
        "4340000000000000, 9007199254740992",
        "c340000000000000, -9007199254740992",
        "4430000000000000, 295147905179352830000",
        "44b52d02c7e14af5, 9.999999999999997e+22",
        "44b52d02c7e14af6, 1e+23",
        "44b52d02c7e14af7, 1.0000000000000001e+23",
        "444b1ae4d6e2ef4e, 999999999999999700000",
        "444b1ae4d6e2ef4f, 999999999999999900000",
        "444b1ae4d6e2ef50, 1e+21",
        "3eb0c6f7a0b5ed8c, 9.999999999999997e-7",
        "3eb0c6f7a0b5ed8d, 0.000001",
        "41b3de4355555553, 333333333.3333332",
        "41b3de4355555554, 333333333.33333325",
        "41b3de4355555555, 333333333.3333333",
        "41b3de4355555556, 333333333.3333334",
        "41b3de4355555557, 333333333.33333343",
        "becbf647612f3696, -0.0000033333333333333333",
        "43143ff3c1cb0959, 1424953923781206.2"
    })
    void rfc8785_appendixB_numbers(String bits, String expected) {
        double value = Double.longBitsToDouble(Long.parseUnsignedLong(bits, 16));
        assertThat(Es6Numbers.format(value)).isEqualTo(expected);
        // and through the parser, from Java's own spelling of the same double
        assertThat(JsonCanonicalizer.canonicalize("[" + Double.toString(value) + "]"))
                .isEqualTo("[" + expected + "]");
    }

    @Test
    void nanAndInfinity_areRejected() {
        assertThatThrownBy(() -> Es6Numbers.format(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Es6Numbers.format(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize("[1e400]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("double range");
    }

    @Test
    void invalidJson_isRejectedWithTheOffset() {
        for (String bad : List.of(
                "",
                "{",
                "[1,]",
                "{\"a\":1,}",
                "{\"a\" 1}",
                "01",
                "1.",
                "-",
                "+1",
                ".5",
                "1e",
                "tru",
                "nul",
                "\"unterminated",
                "\"tab\tin string\"",
                "\"\\x\"",
                "[1] 2",
                "{\"a\":1,\"a\":2}",
                "\"\\ud800\"",
                "'single'",
                "NaN")) {
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(bad))
                    .as("input %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("invalid JSON at offset");
        }
    }

    @Test
    void whitespaceEscapesAndNesting_areNormalised() {
        assertThat(JsonCanonicalizer.canonicalize(
                        " { \"b\" : [ 1 , { \"z\":true, \"a\":null } ] , \"a\" : \"\\u0041\\t\" } "))
                .isEqualTo("{\"a\":\"A\\t\",\"b\":[1,{\"a\":null,\"z\":true}]}");
        assertThat(JsonCanonicalizer.canonicalize("\"\\u001f\\u007f\"")).isEqualTo("\"\\u001f\u007f\"");
        assertThat(JsonCanonicalizer.canonicalize("-0.0")).isEqualTo("0");
        assertThat(JsonCanonicalizer.canonicalize("[1.0, 100, 1e2, 12345678901234567890]"))
                .isEqualTo("[1,100,100,12345678901234567000]");
    }

    @Test
    void removedPointers_dropMembersAtAnyDepth_andIgnoreAbsentOnes() {
        String json = "{\"id\":1,\"published_at\":\"x\",\"meta\":{\"trace_id\":\"t\",\"kind\":\"k\"},"
                + "\"items\":[{\"at\":1,\"sku\":\"s\"}],\"a/b\":1,\"m~n\":2}";
        assertThat(JsonCanonicalizer.canonicalize(
                        json, List.of("/published_at", "/meta/trace_id", "/items/0/at", "/absent/x", "/a~1b", "/m~0n")))
                .isEqualTo("{\"id\":1,\"items\":[{\"sku\":\"s\"}],\"meta\":{\"kind\":\"k\"}}");
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(json, List.of("published_at")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("JSON Pointer");
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(json, List.of("/a~2")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deepNesting_isRejectedInsteadOfOverflowingTheStack() {
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize("[".repeat(100_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested deeper");
    }
}
