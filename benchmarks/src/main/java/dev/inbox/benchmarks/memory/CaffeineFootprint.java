package dev.inbox.benchmarks.memory;

import dev.inbox.InboxKey;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;

/**
 * Measures the heap one retained key costs in {@link CaffeineInboxStore}: heap after GC with N
 * completed 32-character keys, minus heap after GC with an empty store, divided by N.
 *
 * <pre>{@code
 * ./mvnw -q -pl benchmarks -am compile exec:java \
 *     -Dexec.mainClass=dev.inbox.benchmarks.memory.CaffeineFootprint -Dexec.args=1000000
 * }</pre>
 */
public final class CaffeineFootprint {

    private CaffeineFootprint() {}

    public static void main(String[] args) throws Exception {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        CaffeineInboxStore store =
                CaffeineInboxStore.builder().maximumSize(keys * 2L).build();
        long before = heapAfterGc();
        for (int i = 0; i < keys; i++) {
            InboxKey key = InboxKey.of("billing", String.format(Locale.ROOT, "order-%026d", i)); // 32 chars
            OwnerToken owner = OwnerToken.random();
            store.claim(ClaimRequest.of(key, owner, Duration.ofMinutes(1)));
            store.complete(key, owner, Duration.ofHours(48));
        }
        long after = heapAfterGc();
        System.out.printf(
                Locale.ROOT,
                "%,d completed keys of 32 characters: %,d bytes of heap after GC, %.1f bytes per key (%s)%n",
                store.size(),
                after - before,
                (after - before) / (double) keys,
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        store.close();
    }

    private static long heapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(
                    used,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
