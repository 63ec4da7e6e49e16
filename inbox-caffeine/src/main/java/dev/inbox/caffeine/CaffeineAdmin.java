package dev.inbox.caffeine;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.inbox.InboxKey;
import dev.inbox.spi.InboxArguments;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.ScanningInboxAdmin;
import java.util.Map;
import java.util.Optional;

/**
 * {@link CaffeineInboxStore#admin()}: inspect, release and forget are one map operation on the
 * key; stuck and count visit every record in the store (O(size), no I/O). Times are the store's
 * ticker, shown as wall-clock instants by its distance from now. A COMPLETED record keeps only a
 * hash of its owner token, so it shows no owner.
 */
final class CaffeineAdmin extends ScanningInboxAdmin {

    private final Map<String, MemoryRecord> records;
    private final Ticker ticker;
    private final long grace;
    private final Runnable openCheck;

    CaffeineAdmin(Map<String, MemoryRecord> records, Ticker ticker, long grace, Runnable ensureOpen) {
        this.records = records;
        this.ticker = ticker;
        this.grace = grace;
        this.openCheck = ensureOpen;
    }

    @Override
    public Optional<RecordView> inspect(InboxKey key) {
        InboxArguments.requireNonNull(key, "key");
        openCheck.run();
        MemoryRecord record = records.get(CaffeineInboxStore.cacheKey(key));
        return record == null
                ? Optional.empty()
                : Optional.of(view(key, record, ticker.read(), System.currentTimeMillis()));
    }

    @Override
    protected void ensureOpen() {
        openCheck.run();
    }

    @Override
    protected void scan(String operation, String consumer, Visitor visitor) {
        long now = ticker.read();
        long wall = System.currentTimeMillis();
        String prefix = consumer + '\0';
        records.forEach((k, record) -> {
            if (k.startsWith(prefix)) {
                visitor.visit(view(InboxKey.of(consumer, k.substring(prefix.length())), record, now, wall), wall);
            }
        });
    }

    @Override
    protected boolean delete(String operation, InboxKey key, boolean heldOnly) {
        boolean[] deleted = new boolean[1];
        records.computeIfPresent(CaffeineInboxStore.cacheKey(key), (k, old) -> {
            if (Nanos.reached(ticker.read(), old.expiresAt + grace)) {
                return null; // counts as absent: nothing an operator deleted
            }
            if (heldOnly && !(old instanceof MemoryRecord.Held)) {
                return old;
            }
            deleted[0] = true;
            return null;
        });
        return deleted[0];
    }

    private RecordView view(InboxKey key, MemoryRecord record, long now, long wall) {
        boolean held = record instanceof MemoryRecord.Held;
        byte[] result = record instanceof MemoryRecord.Done done ? done.result : null;
        return RecordView.ofMillis(
                key,
                !held,
                held ? ((MemoryRecord.Held) record).owner : null,
                wall,
                wall + Math.floorDiv(record.expiresAt - now, 1_000_000L),
                wall + Math.floorDiv(record.expiresAt + grace - now, 1_000_000L),
                record.fingerprint,
                result == null ? null : result.length);
    }
}
