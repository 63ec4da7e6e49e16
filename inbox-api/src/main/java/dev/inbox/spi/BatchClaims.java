package dev.inbox.spi;

import dev.inbox.InboxKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The shape of {@code claimAll} in stores that batch: a key repeated in the batch is answered
 * DUPLICATE of its first occurrence; the distinct keys are sorted (so that concurrent overlapping
 * batches lock rows in one order and cannot deadlock), cut into chunks of one statement each, and
 * any key a chunk could not answer is claimed alone. For store implementations.
 */
public final class BatchClaims {

    /** Claims one chunk in one round trip. */
    @FunctionalInterface
    public interface ChunkClaimer {
        /**
         * Answers for {@code chunk}, in order; a null answer sends that request to the single claim.
         */
        ClaimResult[] claim(List<ClaimRequest> chunk);
    }

    private BatchClaims() {}

    /**
     * Claims {@code requests} as {@link dev.inbox.spi.InboxStore#claimAll(List)} specifies.
     *
     * @throws IllegalArgumentException if {@code requests} or an element is null
     */
    public static List<ClaimResult> claimAll(
            List<ClaimRequest> requests,
            int chunkSize,
            ChunkClaimer chunkClaimer,
            Function<ClaimRequest, ClaimResult> singleClaim) {
        List<ClaimRequest> batch = InboxArguments.requireNoNulls(requests, "requests");
        ClaimResult[] results = new ClaimResult[batch.size()];
        Map<InboxKey, Integer> firsts = new HashMap<>();
        List<Integer> distinct = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            ClaimRequest request = batch.get(i);
            Integer first = firsts.putIfAbsent(request.key(), i);
            if (first == null) {
                distinct.add(i);
            } else {
                results[i] = ClaimResult.duplicate(
                        false, FingerprintCheck.compare(batch.get(first).fingerprint(), request.fingerprint()));
            }
        }
        distinct.sort(Comparator.comparing((Integer i) -> batch.get(i).key().consumer())
                .thenComparing(i -> batch.get(i).key().id()));
        for (int from = 0; from < distinct.size(); from += chunkSize) {
            List<Integer> indices = distinct.subList(from, Math.min(distinct.size(), from + chunkSize));
            List<ClaimRequest> chunk = new ArrayList<>(indices.size());
            for (int index : indices) {
                chunk.add(batch.get(index));
            }
            ClaimResult[] answers = chunkClaimer.claim(chunk);
            for (int j = 0; j < chunk.size(); j++) {
                results[indices.get(j)] = answers[j] != null ? answers[j] : singleClaim.apply(chunk.get(j));
            }
        }
        return Arrays.asList(results);
    }
}
