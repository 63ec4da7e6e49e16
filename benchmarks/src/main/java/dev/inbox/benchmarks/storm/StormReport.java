package dev.inbox.benchmarks.storm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.RetentionAdvice;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/** The outcome of a storm: the counts, the ledger's verdict, throughput and claim latency. */
record StormReport(
        StormConfig config,
        String target,
        boolean closesCrashWindow,
        long events,
        long deliveries,
        long redeliveries,
        long processed,
        long duplicatesSuppressed,
        long busyRetries,
        long workFailures,
        long crashesBeforeWork,
        long crashesAfterWork,
        long completionsFailed,
        long leaseTakeovers,
        long lateDuplicates,
        long leaseLost,
        long storeErrors,
        long purges,
        long purged,
        long purgeErrors,
        List<Long> heapAfterGcBytes,
        List<Long> storedRecords,
        long appliedTwiceOrMore,
        long extraApplications,
        long unexplainedExtra,
        List<Integer> unexplainedEvents,
        long neverApplied,
        double seconds,
        double deliveriesPerSecond,
        double p50Micros,
        double p99Micros,
        double p999Micros,
        long longestRedeliveryLagMs,
        long longestPastRetentionMs,
        @Nullable Long recommendedRetentionMs,
        boolean finished) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static StormReport of(
            StormConfig config,
            StormTarget target,
            Storm.Counters c,
            int[] ledger,
            int[] causes,
            Histogram latencies,
            Storm.Samples samples,
            @Nullable RetentionAdvice advice,
            long elapsedNanos,
            boolean finished) {
        long twice = 0;
        long extra = 0;
        long never = 0;
        long unexplained = 0;
        List<Integer> unexplainedEvents = new java.util.ArrayList<>();
        boolean closesWindow = target.closesCrashWindow();
        for (int event = 0; event < ledger.length; event++) {
            int applied = ledger[event];
            if (applied == 0) {
                never++;
            } else if (applied > 1) {
                twice++;
                extra += applied - 1;
                // Each extra application must have a cause recorded for this very event: one of its
                // deliveries applied the work and the store did not record it as done.
                int allowed = closesWindow ? 0 : causes[event];
                if (applied - 1 > allowed) {
                    unexplained += applied - 1 - allowed;
                    if (unexplainedEvents.size() < 10) {
                        unexplainedEvents.add(event);
                    }
                }
            }
        }
        double seconds = elapsedNanos / 1e9;
        long handled = c.deliveries.sum() + c.redeliveries.sum();
        List<Long> heap;
        List<Long> records;
        synchronized (samples) {
            heap = List.copyOf(samples.heapAfterGcBytes);
            records = List.copyOf(samples.records);
        }
        return new StormReport(
                config,
                target.describe(),
                target.closesCrashWindow(),
                ledger.length,
                c.deliveries.sum(),
                c.redeliveries.sum(),
                c.processed.sum(),
                c.duplicates.sum(),
                c.busy.sum(),
                c.failures.sum(),
                c.crashesBeforeWork.sum(),
                c.crashesAfterWork.sum(),
                c.completionsFailed.sum(),
                c.takeovers.sum(),
                c.lateDuplicates.sum(),
                c.leaseLost.sum(),
                c.storeErrors.sum(),
                c.purges.sum(),
                c.purged.sum(),
                c.purgeErrors.sum(),
                heap,
                records,
                twice,
                extra,
                unexplained,
                List.copyOf(unexplainedEvents),
                never,
                seconds,
                handled / seconds,
                micros(latencies, 50),
                micros(latencies, 99),
                micros(latencies, 99.9),
                advice == null ? 0 : advice.longestLag().toMillis(),
                advice == null ? 0 : advice.longestPastRetention().toMillis(),
                advice == null || advice.recommended() == null
                        ? null
                        : advice.recommended().toMillis(),
                finished);
    }

    private static double micros(Histogram latencies, double percentile) {
        return latencies.getTotalCount() == 0 ? 0 : latencies.getValueAtPercentile(percentile) / 1_000.0;
    }

    /**
     * True when the run kept its promise: nothing lost, and nothing applied twice except, in lease
     * mode, where one of that same event's deliveries applied the work and its completion was not
     * recorded — a consumer that crashed after its work, a completion the store failed to record,
     * a lease that ended before the work did — at most one extra application per such cause.
     * Transactional mode promises exactly once, crashes and store failures included.
     */
    boolean passed() {
        return finished && neverApplied == 0 && unexplainedExtra == 0;
    }

    /** The verdict in words. */
    String verdict() {
        if (!finished) {
            return "DID NOT FINISH: deliveries were still outstanding at the deadline";
        }
        if (neverApplied > 0) {
            return "FAILED: " + neverApplied + " events were never applied (lost)";
        }
        if (unexplainedExtra > 0) {
            return "FAILED: " + unexplainedExtra + " extra applications "
                    + (closesCrashWindow
                            ? "(transactional mode allows none)"
                            : "without a crash after work, a failed completion or a lost lease of their own event")
                    + "; events " + unexplainedEvents;
        }
        if (extraApplications > 0) {
            return "AT-LEAST-ONCE: " + extraApplications + " extra applications, each after work whose completion"
                    + " was not recorded (a crash after work, a failed completion or a lost lease: the lease-mode"
                    + " window; the transactional mode of a SQL store closes it)";
        }
        return "EXACTLY-ONCE: every event applied exactly once";
    }

    String toText() {
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                String.join(
                        "\n",
                        "store                  %s",
                        "events                 %,d over %d partitions, %d consumers",
                        "deliveries             %,d (+%,d redeliveries after busy, failure, crash or store error)",
                        "processed              %,d",
                        "duplicates suppressed  %,d",
                        "busy retries           %,d",
                        "work failures          %,d (released and redelivered)",
                        "crashes                %,d before work, %,d after work",
                        "lease takeovers        %,d",
                        "late duplicates        %,d",
                        "lease lost mid-work    %,d",
                        "store errors           %,d (%,d of them completions after the work had run)",
                        "applied twice          %,d",
                        "never applied          %,d",
                        "throughput             %,.0f deliveries/s over %.2f s",
                        "claim latency          p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs"),
                target + (config.broker().isEmpty() ? "" : ", through " + config.broker()),
                events,
                config.partitions(),
                config.consumers(),
                deliveries,
                redeliveries,
                processed,
                duplicatesSuppressed,
                busyRetries,
                workFailures,
                crashesBeforeWork,
                crashesAfterWork,
                leaseTakeovers,
                lateDuplicates,
                leaseLost,
                storeErrors,
                completionsFailed,
                appliedTwiceOrMore,
                neverApplied,
                deliveriesPerSecond,
                seconds,
                p50Micros,
                p99Micros,
                p999Micros));
        text.append(String.format(
                Locale.ROOT,
                "%nredelivery lag         longest %,d ms after completion; late duplicates up to %,d ms past retention",
                longestRedeliveryLagMs,
                longestPastRetentionMs));
        text.append(String.format(
                Locale.ROOT,
                "%nretention              %,d ms configured, %s",
                config.retention().toMillis(),
                recommendedRetentionMs == null
                        ? "no duplicate measured"
                        : String.format(
                                Locale.ROOT,
                                "%,d ms recommended (longest lag + lease, + 25 %%)%s",
                                recommendedRetentionMs,
                                recommendedRetentionMs > config.retention().toMillis() ? ": UNDERSIZED" : "")));
        if (purges > 0 || purgeErrors > 0) {
            text.append(String.format(
                    Locale.ROOT,
                    "%npurge                  %,d records in %,d runs, %,d failed",
                    purged,
                    purges,
                    purgeErrors));
        }
        if (!heapAfterGcBytes.isEmpty()) {
            text.append(String.format(
                    Locale.ROOT,
                    "%nheap after GC          %s MiB (first, min, max, last of %d samples)",
                    summary(heapAfterGcBytes, 1048576.0),
                    heapAfterGcBytes.size()));
            if (storedRecords.get(0) >= 0) {
                text.append(String.format(
                        Locale.ROOT, "%nrecords stored         %s (first, min, max, last)", summary(storedRecords, 1)));
            }
        }
        return text.append(String.format("%nverdict                %s", verdict()))
                .toString();
    }

    private static String summary(List<Long> samples, double unit) {
        long min = samples.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = samples.stream().mapToLong(Long::longValue).max().orElse(0);
        return String.format(
                Locale.ROOT,
                unit == 1 ? "%,.0f, %,.0f, %,.0f, %,.0f" : "%.1f, %.1f, %.1f, %.1f",
                samples.get(0) / unit,
                min / unit,
                max / unit,
                samples.get(samples.size() - 1) / unit);
    }

    String toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("store", target);
        json.put("broker", config.broker().isEmpty() ? "simulated" : config.broker());
        json.put("events", events);
        json.put("partitions", config.partitions());
        json.put("consumers", config.consumers());
        json.put("deliveries", deliveries);
        json.put("redeliveries", redeliveries);
        json.put("processed", processed);
        json.put("duplicatesSuppressed", duplicatesSuppressed);
        json.put("busyRetries", busyRetries);
        json.put("workFailures", workFailures);
        json.put("crashesBeforeWork", crashesBeforeWork);
        json.put("crashesAfterWork", crashesAfterWork);
        json.put("completionsFailed", completionsFailed);
        json.put("leaseTakeovers", leaseTakeovers);
        json.put("lateDuplicates", lateDuplicates);
        json.put("leaseLost", leaseLost);
        json.put("storeErrors", storeErrors);
        json.put("purges", purges);
        json.put("purged", purged);
        json.put("purgeErrors", purgeErrors);
        json.put("heapAfterGcBytes", heapAfterGcBytes);
        json.put("storedRecords", storedRecords);
        json.put("appliedTwice", appliedTwiceOrMore);
        json.put("extraApplications", extraApplications);
        json.put("unexplainedExtraApplications", unexplainedExtra);
        json.put("neverApplied", neverApplied);
        json.put("seconds", Math.round(seconds * 1000) / 1000.0);
        json.put("deliveriesPerSecond", Math.round(deliveriesPerSecond * 10) / 10.0);
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("p50", p50Micros);
        latency.put("p99", p99Micros);
        latency.put("p999", p999Micros);
        json.put("claimLatencyMicros", latency);
        json.put("passed", passed());
        json.put("verdict", verdict());
        try {
            return JSON.writeValueAsString(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
