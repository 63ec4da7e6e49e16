package dev.inbox.testing;

import org.jspecify.annotations.Nullable;

/** One way to read a setting: the system property wins over the environment variable. */
final class Settings {

    private Settings() {}

    static @Nullable String get(String property, String variable) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(variable);
        }
        return value == null || value.isBlank() ? null : value;
    }

    /** True when {@code INBOX_TEST_SERVERS=containers} (or {@code -Dinbox.test.servers=containers}). */
    static boolean containersForced() {
        return "containers".equalsIgnoreCase(get("inbox.test.servers", "INBOX_TEST_SERVERS"));
    }
}
