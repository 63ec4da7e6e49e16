package dev.inbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/** The native-image hints cover every script a store module ships, and the auto-configuration imports them. */
class InboxRuntimeHintsTest {

    @Test
    void everyScriptTheStoresLoad_isARegisteredResource() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        new InboxRuntimeHints().registerHints(hints, getClass().getClassLoader());
        List<String> scripts = new ArrayList<>();
        for (String pattern : new String[] {"classpath*:dev/inbox/**/*.sql", "classpath*:dev/inbox/**/*.lua"}) {
            for (Resource resource : new PathMatchingResourcePatternResolver().getResources(pattern)) {
                String url = resource.getURL().toString();
                scripts.add(url.substring(url.lastIndexOf("dev/inbox/")));
            }
        }
        assertThat(scripts)
                .as("the stores' scripts on the class path")
                .contains(
                        "dev/inbox/postgres/schema-v3.sql",
                        "dev/inbox/mysql/schema-v3.sql",
                        "dev/inbox/redis/claim.lua");
        for (String script : scripts) {
            assertThat(RuntimeHintsPredicates.resource().forResource(script))
                    .as("a resource hint for %s", script)
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/inbox/other/secret.txt"))
                .rejects(hints);
    }

    @Test
    void theAutoConfigurationImportsTheHints() {
        assertThat(InboxAutoConfiguration.class
                        .getAnnotation(ImportRuntimeHints.class)
                        .value())
                .containsExactly(InboxRuntimeHints.class);
    }
}
