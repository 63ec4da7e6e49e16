package dev.inbox.benchmarks.storm;

import java.util.Arrays;
import java.util.List;

/** Claim latencies of one consumer thread, merged and sorted at the end for percentiles. */
final class LatencyRecorder {

    private long[] values = new long[4096];
    private int size;

    void record(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    /** All recorded latencies, sorted. */
    static long[] merge(List<LatencyRecorder> recorders) {
        synchronized (recorders) {
            int total = 0;
            for (LatencyRecorder r : recorders) {
                total += r.size;
            }
            long[] all = new long[total];
            int at = 0;
            for (LatencyRecorder r : recorders) {
                System.arraycopy(r.values, 0, all, at, r.size);
                at += r.size;
            }
            Arrays.sort(all);
            return all;
        }
    }

    /** The {@code q} quantile (0..1) of sorted values, in microseconds; 0 when empty. */
    static double quantileMicros(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1_000.0;
    }
}
