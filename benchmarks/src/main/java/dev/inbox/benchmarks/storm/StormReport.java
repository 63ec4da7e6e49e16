package dev.inbox.benchmarks.storm;

import java.util.Locale;

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
        long leaseTakeovers,
        long lateDuplicates,
        long leaseLost,
        long storeErrors,
        long appliedTwiceOrMore,
        long extraApplications,
        long neverApplied,
        double seconds,
        double deliveriesPerSecond,
        double p50Micros,
        double p99Micros,
        double p999Micros,
        boolean finished) {

    static StormReport of(
            StormConfig config,
            StormTarget target,
            Storm.Counters c,
            int[] ledger,
            long[] sortedLatencies,
            long elapsedNanos,
            boolean finished) {
        long twice = 0;
        long extra = 0;
        long never = 0;
        for (int applied : ledger) {
            if (applied == 0) {
                never++;
            } else if (applied > 1) {
                twice++;
                extra += applied - 1;
            }
        }
        double seconds = elapsedNanos / 1e9;
        long handled = c.deliveries.sum() + c.redeliveries.sum();
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
                c.takeovers.sum(),
                c.lateDuplicates.sum(),
                c.leaseLost.sum(),
                c.storeErrors.sum(),
                twice,
                extra,
                never,
                seconds,
                handled / seconds,
                LatencyRecorder.quantileMicros(sortedLatencies, 0.50),
                LatencyRecorder.quantileMicros(sortedLatencies, 0.99),
                LatencyRecorder.quantileMicros(sortedLatencies, 0.999),
                finished);
    }

    /**
     * True when the run kept its promise: nothing lost, and nothing applied twice except, in lease
     * mode, by a consumer that crashed after its work and before completing (at most one extra
     * application per such crash). Transactional mode promises exactly once, crashes included.
     */
    boolean passed() {
        return finished && neverApplied == 0 && extraApplications <= allowedExtra();
    }

    private long allowedExtra() {
        return closesCrashWindow ? 0 : crashesAfterWork;
    }

    /** The verdict in words. */
    String verdict() {
        if (!finished) {
            return "DID NOT FINISH: deliveries were still outstanding at the deadline";
        }
        if (neverApplied > 0) {
            return "FAILED: " + neverApplied + " events were never applied (lost)";
        }
        if (extraApplications > allowedExtra()) {
            return "FAILED: " + extraApplications + " extra applications, more than the " + allowedExtra()
                    + (closesCrashWindow ? " that transactional mode allows" : " crashes after work can explain");
        }
        if (extraApplications > 0) {
            return "AT-LEAST-ONCE: " + extraApplications + " extra applications, each by a consumer that crashed"
                    + " after its work and before completing (the lease-mode window; the transactional mode of a SQL"
                    + " store closes it)";
        }
        return "EXACTLY-ONCE: every event applied exactly once";
    }

    String toText() {
        return String.format(
                Locale.ROOT,
                String.join(
                        "\n",
                        "store                  %s",
                        "events                 %,d over %d partitions, %d consumers",
                        "deliveries             %,d (+%,d redeliveries after busy, failure or crash)",
                        "processed              %,d",
                        "duplicates suppressed  %,d",
                        "busy retries           %,d",
                        "work failures          %,d (released and redelivered)",
                        "crashes                %,d before work, %,d after work",
                        "lease takeovers        %,d",
                        "late duplicates        %,d",
                        "lease lost mid-work    %,d",
                        "store errors           %,d",
                        "applied twice          %,d",
                        "never applied          %,d",
                        "throughput             %,.0f deliveries/s over %.2f s",
                        "claim latency          p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs",
                        "verdict                %s"),
                target,
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
                appliedTwiceOrMore,
                neverApplied,
                deliveriesPerSecond,
                seconds,
                p50Micros,
                p99Micros,
                p999Micros,
                verdict());
    }

    String toJson() {
        return String.format(
                Locale.ROOT,
                "{\"store\":\"%s\",\"events\":%d,\"partitions\":%d,\"consumers\":%d,\"deliveries\":%d,"
                        + "\"redeliveries\":%d,\"processed\":%d,\"duplicatesSuppressed\":%d,\"busyRetries\":%d,"
                        + "\"workFailures\":%d,\"crashesBeforeWork\":%d,\"crashesAfterWork\":%d,\"leaseTakeovers\":%d,"
                        + "\"lateDuplicates\":%d,\"leaseLost\":%d,\"storeErrors\":%d,\"appliedTwice\":%d,"
                        + "\"extraApplications\":%d,\"neverApplied\":%d,\"seconds\":%.3f,\"deliveriesPerSecond\":%.1f,"
                        + "\"claimLatencyMicros\":{\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f},\"passed\":%b,"
                        + "\"verdict\":\"%s\"}",
                target,
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
                appliedTwiceOrMore,
                extraApplications,
                neverApplied,
                seconds,
                deliveriesPerSecond,
                p50Micros,
                p99Micros,
                p999Micros,
                passed(),
                verdict().replace("\"", "'"));
    }
}
