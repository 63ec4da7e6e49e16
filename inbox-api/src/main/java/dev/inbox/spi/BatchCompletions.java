package dev.inbox.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The shape of {@code completeAll} in stores that batch: the distinct items (an item repeated in
 * the batch gets the answer of its first occurrence) are cut into chunks of one round trip each,
 * and each item is answered true when its chunk completed it. For store implementations.
 */
public final class BatchCompletions {

    /** Completes one chunk in one round trip. */
    @FunctionalInterface
    public interface ChunkCompleter {
        /**
         * Completes {@code chunk} (distinct items) and returns those whose owner holds, or had
         * already completed, its record: the items {@link InboxStore#complete} would answer true.
         */
        Set<HeldKey> complete(List<HeldKey> chunk);
    }

    private BatchCompletions() {}

    /**
     * Completes {@code held} as {@link InboxStore#completeAll(List, Duration)} specifies.
     *
     * @throws IllegalArgumentException if {@code held} or an element is null, or {@code retention}
     *     is null or not positive (before any chunk)
     */
    public static List<Boolean> completeAll(
            List<HeldKey> held, Duration retention, int chunkSize, ChunkCompleter chunkCompleter) {
        List<HeldKey> batch = InboxArguments.requireNoNulls(held, "held");
        InboxArguments.requirePositive(retention, "retention");
        List<HeldKey> distinct = new ArrayList<>(new LinkedHashSet<>(batch));
        Set<HeldKey> done = new HashSet<>();
        for (int from = 0; from < distinct.size(); from += chunkSize) {
            done.addAll(chunkCompleter.complete(distinct.subList(from, Math.min(distinct.size(), from + chunkSize))));
        }
        List<Boolean> answers = new ArrayList<>(batch.size());
        for (HeldKey item : batch) {
            answers.add(done.contains(item));
        }
        return answers;
    }
}
