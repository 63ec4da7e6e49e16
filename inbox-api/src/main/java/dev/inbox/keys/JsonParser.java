package dev.inbox.keys;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A strict RFC 8259 / I-JSON parser into plain Java values: {@code TreeMap<String, Object>} for
 * objects (sorted by UTF-16 code units, as RFC 8785 sorts), {@code List<Object>} for arrays,
 * {@code String}, {@code Double}, {@code Boolean} and {@link #NULL}.
 *
 * <p>It rejects what RFC 8785 cannot canonicalize: duplicate member names, numbers outside the
 * double range, lone surrogates, and anything that is not JSON.
 */
final class JsonParser {

    /** The JSON literal {@code null}. */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final int MAX_DEPTH = 256;

    private final String text;
    private int pos;
    private int depth;

    private JsonParser(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        JsonParser parser = new JsonParser(text);
        parser.skipWhitespace();
        Object value = parser.value();
        parser.skipWhitespace();
        if (parser.pos != text.length()) {
            throw parser.error("unexpected text after the JSON value");
        }
        return value;
    }

    private Object value() {
        if (pos >= text.length()) {
            throw error("unexpected end of JSON");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", NULL);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Map<String, Object> object() {
        enter();
        pos++; // {
        Map<String, Object> members = new TreeMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return members;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("expected a member name");
            }
            String name = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            if (members.put(name, value()) != null) {
                throw error("duplicate member name \"" + name + "\"");
            }
            skipWhitespace();
            char c = next();
            if (c == '}') {
                depth--;
                return members;
            }
            if (c != ',') {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array() {
        enter();
        pos++; // [
        List<Object> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return elements;
        }
        while (true) {
            skipWhitespace();
            elements.add(value());
            skipWhitespace();
            char c = next();
            if (c == ']') {
                depth--;
                return elements;
            }
            if (c != ',') {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        pos++; // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                throw error("unescaped control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append(hex4());
                default -> throw error("invalid escape '\\" + e + "'");
            }
        }
        String s = out.toString();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw error("a string holds a lone surrogate, which RFC 8785 cannot canonicalize");
            }
        }
        return s;
    }

    private char hex4() {
        if (pos + 4 > text.length()) {
            throw error("truncated \\u escape");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos++), 16);
            if (digit < 0) {
                throw error("invalid \\u escape");
            }
            value = value * 16 + digit;
        }
        return (char) value;
    }

    private Double number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (!digits()) {
            throw error("invalid number");
        }
        if (peek() == '.') {
            pos++;
            if (!digits()) {
                throw error("invalid number: digits must follow '.'");
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!digits()) {
                throw error("invalid number: digits must follow the exponent");
            }
        }
        double value = Double.parseDouble(text.substring(start, pos));
        if (Double.isInfinite(value)) {
            throw error("number outside the IEEE 754 double range");
        }
        return value;
    }

    private boolean digits() {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        return pos > start;
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("invalid literal");
        }
        pos += word.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("JSON nested deeper than " + MAX_DEPTH);
        }
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private char next() {
        if (pos >= text.length()) {
            throw error("unexpected end of JSON");
        }
        return text.charAt(pos++);
    }

    private void expect(char c) {
        if (next() != c) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(String message) {
        return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + message);
    }
}
