package dev.inbox.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A versioned DDL file shipped in a store's jar: {@code --} comment lines, statements ending with
 * {@code ;} at the end of a line, and {@code ${name}} placeholders for validated identifiers.
 */
public final class SqlScript {

    private SqlScript() {}

    /**
     * The statements of resource {@code name} next to {@code owner}, with each placeholder {@code
     * ${key}} replaced by its value (already-quoted identifiers; never user text).
     *
     * @throws IllegalStateException if the resource is missing from the jar
     */
    public static List<String> load(Class<?> owner, String name, Map<String, String> placeholders) {
        String text;
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing next to " + owner.getName());
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.startsWith("--") || line.isBlank()) {
                continue;
            }
            current.append(line).append('\n');
            if (line.stripTrailing().endsWith(";")) {
                String statement = current.toString().trim();
                statement = statement.substring(0, statement.length() - 1);
                for (Map.Entry<String, String> placeholder : placeholders.entrySet()) {
                    statement = statement.replace("${" + placeholder.getKey() + "}", placeholder.getValue());
                }
                statements.add(statement);
                current.setLength(0);
            }
        }
        return statements;
    }
}
