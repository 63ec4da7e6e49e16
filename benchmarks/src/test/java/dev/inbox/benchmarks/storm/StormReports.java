package dev.inbox.benchmarks.storm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Keeps a fault storm's report when {@code -Dinbox.storm.reports=<dir>} is set, as {@code
 * <dir>/<test>.json}: {@code {"injected": "...", "report": {...}}}. That is how RELIABILITY.md's
 * tables are produced from the tests themselves; a plain run keeps nothing.
 */
final class StormReports {

    private StormReports() {}

    static void keep(String test, String injected, String reportJson) {
        String dir = System.getProperty("inbox.storm.reports");
        if (dir == null || dir.isBlank()) {
            return;
        }
        String json =
                "{\"test\":\"" + test + "\",\"injected\":\"" + injected + "\",\"report\":" + reportJson.strip() + "}\n";
        try {
            Files.createDirectories(Path.of(dir));
            Files.writeString(Path.of(dir, test + ".json"), json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
