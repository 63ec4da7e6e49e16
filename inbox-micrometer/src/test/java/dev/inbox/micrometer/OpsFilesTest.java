package dev.inbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.InboxStoreException;
import dev.inbox.RetentionAdvisor;
import dev.inbox.spi.ClaimResult;
import dev.inbox.spi.FingerprintCheck;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and the dashboard under {@code ops/} name only series that exist: every {@code
 * inbox_…} name they use is one {@link MicrometerInboxMetrics} exports through Micrometer's
 * Prometheus registry, and the Kafka rebalance counter one that Micrometer's {@code
 * KafkaClientMetrics} exports for a real consumer. A renamed meter fails here, not at 3 a.m.
 */
class OpsFilesTest {

    private static final Path OPS = Path.of("..", "ops");
    private static final Pattern SERIES = Pattern.compile("\\b((?:inbox|kafka)_[a-z0-9_]+)");
    private static final Set<String> EXPORTED = new TreeSet<>();

    @BeforeAll
    static void scrape() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MicrometerInboxMetrics metrics = MicrometerInboxMetrics.of(registry);
        metrics.claimed("billing", ClaimResult.acquired(), 1_000);
        metrics.claimed("billing", ClaimResult.takenOver(), 1_000);
        metrics.claimed("billing", ClaimResult.busy(), 1_000);
        metrics.claimed("billing", ClaimResult.duplicate(true, FingerprintCheck.MISMATCH), 1_000);
        metrics.storeError("billing", "claim", new InboxStoreException("down", null, true));
        metrics.leaseLost("billing");
        metrics.leaseRenewalFailed("billing");
        metrics.duplicateLag("billing", Duration.ofMinutes(5), Duration.ofSeconds(30));
        metrics.retentionAdvisor("billing", new RetentionAdvisor(Duration.ofHours(48), Duration.ofMinutes(1)));
        metrics.purged("billing", 10);
        for (dev.inbox.DeliveryOutcome outcome : dev.inbox.DeliveryOutcome.values()) {
            metrics.delivered("billing", outcome);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                        Map.of("bootstrap.servers", "127.0.0.1:9", "group.id", "billing"),
                        new StringDeserializer(),
                        new StringDeserializer());
                KafkaClientMetrics kafka = new KafkaClientMetrics(consumer)) {
            kafka.bindTo(registry);
            EXPORTED.addAll(names(registry.scrape()));
        }
        registry.close();
    }

    private static Set<String> names(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static Set<String> seriesIn(Path file) throws IOException {
        Set<String> used = new TreeSet<>();
        Matcher m = SERIES.matcher(Files.readString(file));
        while (m.find()) {
            used.add(m.group(1));
        }
        return used;
    }

    /** The meters behind {@code series}: a timer's {@code _count}, {@code _sum} and {@code _max} are one. */
    private static Set<String> meters(Set<String> series) {
        Set<String> meters = new TreeSet<>();
        for (String name : series) {
            meters.add(name.replaceAll("_(count|sum|max)$", ""));
        }
        return meters;
    }

    @Test
    void theAlertRulesNameExportedSeries() throws IOException {
        Set<String> used = seriesIn(OPS.resolve("prometheus/inbox-alerts.yml"));
        assertThat(used).contains("inbox_claims_total", "kafka_consumer_coordinator_rebalance_total");
        assertThat(EXPORTED).containsAll(used);
    }

    @Test
    void theRuleTestsFeedExportedSeries() throws IOException {
        assertThat(EXPORTED).containsAll(seriesIn(OPS.resolve("prometheus/inbox-alerts-test.yml")));
    }

    @Test
    void theDashboardNamesExportedSeries() throws IOException {
        Set<String> used = seriesIn(OPS.resolve("grafana/inbox-dashboard.json"));
        assertThat(used).contains("inbox_claims_total", "inbox_claim_latency_seconds");
        assertThat(EXPORTED).containsAll(used);
    }

    @Test
    void everyInboxMeterIsOnTheDashboard() throws IOException {
        Set<String> meters = meters(EXPORTED);
        meters.removeIf(name -> !name.startsWith("inbox_"));
        Set<String> shown = meters(seriesIn(OPS.resolve("grafana/inbox-dashboard.json")));
        assertThat(shown).as("meters on the dashboard").containsAll(meters);
    }
}
