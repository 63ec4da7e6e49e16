package dev.inbox.spring.kafka;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.DeliveryOutcome;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.InboxBusyException;
import dev.inbox.spring.InboxClaim;
import dev.inbox.spring.ListenerCounts;
import dev.inbox.spring.SpringInbox;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Deduplicates the records of a Spring Kafka listener container: a redelivery by Kafka or a re-send
 * by the producer of an event already applied does not run the listener again — in lease mode
 * unless a crash fell between the listener and its record; inside the container's transaction with
 * no such window. Install it with {@link
 * InboxKafka#configure}, which also sets the error handling it needs.
 *
 * <p>For each record, before the listener:
 *
 * <ul>
 *   <li>{@code ACQUIRED}: the listener runs; on success the claim is completed, on failure it is
 *       released, so the error handler's retry claims it again at once.
 *   <li>{@code DUPLICATE}: the record is skipped — the listener does not run — and its offset is
 *       committed like a processed record's (Spring Kafka acknowledges a record an interceptor
 *       skips, and calls the interceptors' {@code success} and {@code afterRecord} for it).
 *   <li>{@code BUSY}: another delivery holds the event. {@link InboxBusyException} is thrown; the
 *       error handler of {@link InboxKafka#errorHandler} seeks back and redelivers the record after
 *       the busy back-off, as many times as it takes — a BUSY record is never skipped.
 *   <li>no valid dedup key: {@link MissingKeyException}, which the error handler does not retry:
 *       its recoverer (your dead-letter publisher) takes the record, or — the error handler {@link
 *       InboxKafka} installs when you have none — the container stops, naming the record's headers.
 * </ul>
 *
 * <p><b>Transactional mode.</b> When the container's transaction manager is a {@code
 * DataSourceTransactionManager} (or a {@code JpaTransactionManager}) on the data source of a
 * {@link SpringInbox#joining joining} inbox, and the interceptor runs inside the transaction
 * ({@code setInterceptBeforeTx(false)}, which {@link InboxKafka#configure} sets), the claim is
 * written in the listener's database transaction: the event's record and the listener's writes
 * commit together, and a listener that throws rolls both back. A crash at any point cannot apply
 * the event twice. Otherwise the claims are lease-mode claims.
 *
 * <p>Its state is per consumer thread, so one instance serves all of a factory's containers.
 */
public final class InboxRecordInterceptor<K, V> implements RecordInterceptor<K, V> {

    private final SpringInbox inbox;
    private final RecordKeys keys;
    private final ThreadLocal<@Nullable InboxClaim> current = new ThreadLocal<>();
    private final ListenerCounts counts = new ListenerCounts();

    /**
     * An interceptor that claims each record's event in {@code inbox}, under the dedup id {@code
     * keys} gives it (for example {@code RecordKeys.standard()} or {@code RecordKeys.header("event-id")}).
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public InboxRecordInterceptor(SpringInbox inbox, RecordKeys keys) {
        this.inbox = requireNonNull(inbox, "inbox");
        this.keys = requireNonNull(keys, "keys");
    }

    @Override
    public @Nullable ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        abandonLeftover(); // a claim of a record whose callbacks never came: never held across records
        String id = MissingKeyException.keyOf(keys, record, inbox.inbox().consumer());
        InboxClaim claim = inbox.claim(id);
        switch (claim.status()) {
            case ACQUIRED:
                current.set(claim);
                return record;
            case DUPLICATE:
                counts.record(DeliveryOutcome.DUPLICATE, inbox);
                return null;
            default:
                counts.record(DeliveryOutcome.BUSY, inbox);
                throw new InboxBusyException(id);
        }
    }

    @Override
    public void success(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        InboxClaim claim = take();
        if (claim != null) {
            counts.record(DeliveryOutcome.PROCESSED, inbox);
            claim.completeAfterWork();
        }
    }

    @Override
    public void failure(ConsumerRecord<K, V> record, Exception exception, Consumer<K, V> consumer) {
        InboxClaim claim = take();
        if (claim != null) {
            claim.releaseAfterFailure(exception);
        }
    }

    @Override
    public void afterRecord(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
        abandonLeftover();
    }

    @Override
    public void clearThreadState(Consumer<?, ?> consumer) {
        abandonLeftover();
    }

    private @Nullable InboxClaim take() {
        InboxClaim claim = current.get();
        current.remove();
        return claim;
    }

    private void abandonLeftover() {
        InboxClaim claim = take();
        if (claim != null) {
            claim.releaseAfterFailure(null);
        }
    }

    /** What this adapter did with the deliveries it saw. */
    public ListenerCounts counts() {
        return counts;
    }

    @Override
    public String toString() {
        return "InboxRecordInterceptor[" + inbox + "]";
    }
}
