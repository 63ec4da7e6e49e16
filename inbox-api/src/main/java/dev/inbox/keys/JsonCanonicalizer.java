package dev.inbox.keys;

import dev.inbox.spi.InboxArguments;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): one byte-exact text per JSON value, whatever the
 * member order, whitespace, number spelling or string escaping of the input.
 *
 * <p>Members are sorted by their UTF-16 code units, numbers are written as ECMAScript writes
 * doubles ({@code 4.50} → {@code 4.5}, {@code 1E30} → {@code 1e+30}), strings escape only what
 * JSON requires, and no whitespace is emitted. Input that RFC 8785 cannot canonicalize — invalid
 * JSON, duplicate member names, lone surrogates, numbers beyond the double range — is rejected
 * with {@link IllegalArgumentException}.
 */
public final class JsonCanonicalizer {

    private JsonCanonicalizer() {}

    /**
     * The canonical form of {@code json}.
     *
     * @throws IllegalArgumentException if {@code json} is null or cannot be canonicalized
     */
    public static String canonicalize(String json) {
        return canonicalize(json, List.of());
    }

    /**
     * The canonical form of {@code json} without the members that {@code removed} point at: RFC 6901
     * JSON Pointers such as {@code /published_at} or {@code /meta/trace_id}. A pointer to a member
     * that is absent is ignored, so volatile fields may come and go.
     *
     * @throws IllegalArgumentException if {@code json} cannot be canonicalized or a pointer is not a
     *     valid JSON Pointer to an object member
     */
    public static String canonicalize(String json, Collection<String> removed) {
        InboxArguments.requireNonNull(json, "json");
        List<List<String>> pointers = new ArrayList<>();
        for (String pointer : InboxArguments.<String>requireNoNulls(
                new ArrayList<>(InboxArguments.requireNonNull(removed, "removed")), "removed")) {
            pointers.add(parsePointer(pointer));
        }
        Object root = JsonParser.parse(json);
        for (List<String> pointer : pointers) {
            remove(root, pointer);
        }
        StringBuilder out = new StringBuilder(json.length());
        write(root, out);
        return out.toString();
    }

    private static List<String> parsePointer(String pointer) {
        if (!pointer.startsWith("/")) {
            throw new IllegalArgumentException("a JSON Pointer starts with '/': \"" + pointer + "\"");
        }
        List<String> tokens = new ArrayList<>();
        for (String raw : pointer.substring(1).split("/", -1)) {
            if (raw.replace("~0", "").replace("~1", "").contains("~")) {
                throw new IllegalArgumentException("invalid '~' escape in JSON Pointer \"" + pointer + "\"");
            }
            tokens.add(raw.replace("~1", "/").replace("~0", "~"));
        }
        return tokens;
    }

    @SuppressWarnings("unchecked")
    private static void remove(Object root, List<String> pointer) {
        Object node = root;
        for (int i = 0; i < pointer.size() - 1 && node != null; i++) {
            node = child(node, pointer.get(i));
        }
        if (node instanceof Map) {
            ((Map<String, Object>) node).remove(pointer.get(pointer.size() - 1));
        }
    }

    private static Object child(Object node, String token) {
        if (node instanceof Map<?, ?> map) {
            return map.get(token);
        }
        if (node instanceof List<?> list && token.matches("0|[1-9][0-9]{0,8}")) {
            int index = Integer.parseInt(token);
            return index < list.size() ? list.get(index) : null;
        }
        return null;
    }

    private static void write(Object value, StringBuilder out) {
        if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> member : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString((String) member.getKey(), out);
                out.append(':');
                write(member.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(list.get(i), out);
            }
            out.append(']');
        } else if (value instanceof String s) {
            writeString(s, out);
        } else if (value instanceof Double d) {
            out.append(Es6Numbers.format(d));
        } else {
            out.append(value); // true, false, null
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00")
                                .append(Character.forDigit(c >> 4, 16))
                                .append(Character.forDigit(c & 0xF, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
