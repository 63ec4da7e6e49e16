package dev.inbox.benchmarks.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the side-by-side runs report of their rounds: the median, and a verdict only when the rounds
 * of what was measured and of what it is compared with do not overlap.
 */
public final class Spread {

    private Spread() {}

    /** The median of {@code values} (the mean of the middle two for an even count). */
    public static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * {@code higher} when every round of {@code measured} is above every round of {@code baseline},
     * {@code lower} when every one is below, else "within the spread".
     */
    public static String verdict(List<Double> measured, List<Double> baseline, String higher, String lower) {
        if (Collections.min(measured) > Collections.max(baseline)) {
            return higher;
        }
        if (Collections.max(measured) < Collections.min(baseline)) {
            return lower;
        }
        return "within the spread";
    }
}
