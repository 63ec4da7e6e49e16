package dev.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The alert rules under {@code ops/prometheus} pass Prometheus' own checks: {@code promtool check
 * rules}, and {@code promtool test rules} on series that must fire each alert and series that must
 * not. Needs {@code promtool} (Debian and Ubuntu package {@code prometheus}; or name the binary in
 * {@code INBOX_TEST_PROMTOOL}); under the {@code extended} tag, since the default build asks for
 * nothing beyond the data servers.
 */
@Tag("extended")
class PromtoolRulesTest {

    private static final Path RULES =
            Path.of("..", "ops", "prometheus").toAbsolutePath().normalize();

    private static String promtool() {
        String named = System.getenv("INBOX_TEST_PROMTOOL");
        return named == null || named.isBlank() ? "promtool" : named;
    }

    private static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(promtool()));
        command.addAll(List.of(args));
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(RULES.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "promtool is not installed: install the Debian or Ubuntu package prometheus (apt-get install"
                            + " prometheus), or set INBOX_TEST_PROMTOOL to the promtool binary (" + e.getMessage()
                            + ")",
                    e);
        }
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("promtool %s ended within 60 s", String.join(" ", args))
                    .isTrue();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.exitValue())
                    .as("promtool %s:%n%s", String.join(" ", args), output)
                    .isZero();
            return output;
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void theRulesAreValid() throws Exception {
        assertThat(run("check", "rules", "inbox-alerts.yml")).contains("SUCCESS: 7 rules found");
    }

    @Test
    void eachAlertFiresOnItsSeries_andOnlyOnThem() throws Exception {
        assertThat(run("test", "rules", "inbox-alerts-test.yml")).contains("SUCCESS");
    }
}
