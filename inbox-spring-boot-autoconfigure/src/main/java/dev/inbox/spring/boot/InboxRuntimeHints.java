package dev.inbox.spring.boot;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image of an application on the starter needs beyond what Spring's AOT processing
 * finds by itself: the resources the stores load by name at run time — the SQL scripts of the
 * PostgreSQL and MySQL stores (schema creation and upgrades) and the Redis store's Lua scripts.
 */
final class InboxRuntimeHints implements RuntimeHintsRegistrar {

    /** The resources the store modules load, as patterns. */
    static final String[] RESOURCES = {"dev/inbox/postgres/*.sql", "dev/inbox/mysql/*.sql", "dev/inbox/redis/*.lua"};

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        for (String pattern : RESOURCES) {
            hints.resources().registerPattern(pattern);
        }
    }
}
