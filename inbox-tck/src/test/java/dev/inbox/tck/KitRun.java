package dev.inbox.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/** Runs a kit class through the JUnit Platform, whole or only the tests of some rules. */
final class KitRun {

    private KitRun() {}

    /**
     * The Jupiter engine with parallel execution on, as the build configures it for its own tests: a
     * kit that asks for it (the adapter kit) runs up to seven tests at once.
     */
    private static EngineTestKit.Builder engine() {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "7")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.max-pool-size", "7");
    }

    /** Every test of {@code kit}. */
    static Events all(Class<?> kit) {
        return engine().selectors(selectClass(kit)).execute().testEvents();
    }

    /**
     * Runs only the tests of {@code kit} whose display name starts with one of {@code rules} and
     * returns the rules whose tests failed; at least one test of each rule must have run.
     */
    static Set<String> failedRules(Class<?> kit, String... rules) {
        return failed(rule(kit, rules));
    }

    /**
     * Runs only the tests of {@code kit} whose display name starts with one of {@code rules}; at
     * least one test of each must have run.
     */
    static Events rule(Class<?> kit, String... rules) {
        Set<String> wanted = Set.of(rules);
        PostDiscoveryFilter only = descriptor -> descriptor.isTest()
                        && !wanted.contains(descriptor.getDisplayName().split(" ")[0])
                ? FilterResult.excluded("not one of rules " + wanted)
                : FilterResult.included("one of rules " + wanted);
        Events events =
                engine().selectors(selectClass(kit)).filters(only).execute().testEvents();
        for (String rule : rules) {
            assertThat(events.started().stream()
                            .filter(e -> e.getTestDescriptor().getDisplayName().startsWith(rule + " "))
                            .count())
                    .as("tests of rule %s in %s", rule, kit.getSimpleName())
                    .isPositive();
        }
        return events;
    }

    /**
     * What each failed test among {@code events} said, by its display name: for an assertion that a
     * kit passes, so that a failure says why, not only which rule.
     */
    static Map<String, String> failures(Events events) {
        Map<String, String> failures = new TreeMap<>();
        for (Event event : events.failed().list()) {
            String why = event.getPayload(TestExecutionResult.class)
                    .flatMap(TestExecutionResult::getThrowable)
                    .map(Throwable::toString)
                    .orElse("(no cause)");
            failures.put(event.getTestDescriptor().getDisplayName(), why);
        }
        return failures;
    }

    /** The rule ids of the failed tests among {@code events}. */
    static Set<String> failed(Events events) {
        Set<String> rules = new TreeSet<>();
        for (Event event : events.failed().list()) {
            rules.add(event.getTestDescriptor().getDisplayName().split(" ")[0]);
        }
        return rules;
    }
}
