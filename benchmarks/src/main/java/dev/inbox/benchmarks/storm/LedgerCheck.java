package dev.inbox.benchmarks.storm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The process storms' reading of their ledger ({@link ShareStorm}, {@code HttpStorm}): for each
 * event or key, the processes that wrote its rows, in the order written. One row is one
 * application; an extra row is <em>explained</em> when the process that wrote the row before it was
 * killed (every process started before the survivors was) and the next row came from another
 * process — lease mode's window; anything else is unexplained.
 */
public final class LedgerCheck {

    private static final int EXAMPLES = 10;

    private final int firstSurvivor;
    private long appliedOnce;
    private long extraApplications;
    private long unexplained;
    private long neverApplied;
    private final List<String> examples = new ArrayList<>();

    /** A check where the processes numbered {@code firstSurvivor} and above were never killed. */
    public LedgerCheck(int firstSurvivor) {
        this.firstSurvivor = firstSurvivor;
    }

    /** Adds what the ledger holds of {@code what}: the number of the process that wrote each row. */
    public void add(String what, List<Integer> writers) {
        if (writers.isEmpty()) {
            neverApplied++;
            example(what + " has no ledger row");
            return;
        }
        if (writers.size() == 1) {
            appliedOnce++;
            return;
        }
        extraApplications += writers.size() - 1;
        for (int r = 0; r + 1 < writers.size(); r++) {
            int wrote = writers.get(r);
            if (wrote >= firstSurvivor || writers.get(r + 1) == wrote) {
                unexplained++;
                example(what + " applied by process " + wrote + " and again by " + writers.get(r + 1));
            }
        }
    }

    /** Keeps {@code example} of a failed check, up to ten. */
    public void example(String example) {
        if (examples.size() < EXAMPLES) {
            examples.add(example);
        }
    }

    /** Extra rows in all. */
    public long extraApplications() {
        return extraApplications;
    }

    /** Whether nothing was lost and every extra row is explained (or, {@code exactly}, there is none). */
    public boolean passed(boolean exactly) {
        return neverApplied == 0 && (exactly ? extraApplications == 0 : unexplained == 0);
    }

    /** Puts the counts into a storm's result. */
    public void into(Map<String, Object> out) {
        out.put("appliedOnce", appliedOnce);
        out.put("extraApplications", extraApplications);
        out.put("unexplainedExtraApplications", unexplained);
        out.put("neverApplied", neverApplied);
    }

    /** The kept examples. */
    public List<String> examples() {
        return List.copyOf(examples);
    }
}
