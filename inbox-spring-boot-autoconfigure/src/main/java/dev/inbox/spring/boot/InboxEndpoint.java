package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.InboxOperations;
import dev.inbox.spi.RecordCounts;
import dev.inbox.spi.RecordView;
import dev.inbox.spi.StuckQuery;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code inbox}: what the inbox's store holds, and the operator's two
 * overrides. Exposed like any endpoint ({@code management.endpoints.web.exposure.include=inbox},
 * and over JMX with {@code management.endpoints.jmx.exposure.include=inbox}); its access is
 * read-only by default, so the writes answer only once {@code management.endpoint.inbox.access=unrestricted}.
 *
 * <table>
 *   <caption>Operations (web paths under {@code /actuator/inbox})</caption>
 *   <tr><th>HTTP</th><th>path</th><th>what</th></tr>
 *   <tr><td>GET</td><td>{@code /}</td><td>the application's consumer, its store and its records by state</td></tr>
 *   <tr><td>GET</td><td>{@code /{consumer}?overdue=PT5M&after=&limit=}</td><td>a consumer's records by state
 *       and one page of its stuck records (lease ended at least {@code overdue} ago)</td></tr>
 *   <tr><td>GET</td><td>{@code /{consumer}/{id}}</td><td>one record; 404 when the store holds none</td></tr>
 *   <tr><td>POST</td><td>{@code /{consumer}/{id}}</td><td>release its lease (its owner is fenced)</td></tr>
 *   <tr><td>DELETE</td><td>{@code /{consumer}/{id}}</td><td>forget it: its next delivery is applied again</td></tr>
 * </table>
 *
 * <p>An id may contain slashes: the rest of the path is the id. Counting and listing cost what the
 * store says they cost (a scan on Redis and DynamoDB); see {@code InboxAdmin}.
 */
@Endpoint(id = "inbox", defaultAccess = Access.READ_ONLY)
public class InboxEndpoint {

    private final Inbox inbox;
    private final InboxOperations operations;

    /**
     * The endpoint over the store of {@code inbox}.
     *
     * @throws UnsupportedOperationException if the store offers no admin operations
     */
    public InboxEndpoint(Inbox inbox) {
        this.inbox = inbox;
        this.operations = InboxOperations.of(inbox.store(), inbox.metrics());
    }

    /** The application's consumer, its store and how many records it holds by state. */
    @ReadOperation
    public Map<String, Object> summary() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("consumer", inbox.consumer());
        summary.put("store", inbox.store().toString());
        summary.put("records", operations.count(inbox.consumer()));
        return summary;
    }

    /**
     * A consumer's records by state, and one page of its stuck ones.
     *
     * @param overdue how long ago a lease must have ended, ISO-8601 ({@code PT5M}); none: any ended lease
     * @param after list ids after this one (the last id of the previous page)
     * @param limit the page size, 1 to 1000; none: 100
     */
    @ReadOperation
    public ConsumerRecords consumer(
            @Selector String consumer, @Nullable Duration overdue, @Nullable String after, @Nullable Integer limit) {
        StuckQuery query = new StuckQuery(
                consumer,
                overdue == null ? Duration.ZERO : overdue,
                after == null || after.isEmpty() ? null : after,
                limit == null ? StuckQuery.DEFAULT_LIMIT : limit);
        List<RecordView> stuck = operations.stuck(query);
        StuckQuery next = query.next(stuck);
        return new ConsumerRecords(
                consumer,
                operations.count(consumer),
                stuck.stream().map(InboxRecord::of).toList(),
                next == null ? null : next.after());
    }

    /** One record, or null (404 on the web) when the store holds none. */
    @ReadOperation
    public @Nullable InboxRecord record(
            @Selector String consumer, @Selector(match = Selector.Match.ALL_REMAINING) String[] id) {
        return operations
                .inspect(InboxKey.of(consumer, String.join("/", id)))
                .map(InboxRecord::of)
                .orElse(null);
    }

    /** Releases the record's lease, whoever holds it: the operator's override for a dead owner. */
    @WriteOperation
    public Map<String, Object> releaseLease(
            @Selector String consumer, @Selector(match = Selector.Match.ALL_REMAINING) String[] id) {
        InboxKey key = InboxKey.of(consumer, String.join("/", id));
        return Map.of("key", key.id(), "consumer", consumer, "released", operations.releaseLease(key));
    }

    /** Forgets the record: the event's next delivery is applied again. */
    @DeleteOperation
    public Map<String, Object> forget(
            @Selector String consumer, @Selector(match = Selector.Match.ALL_REMAINING) String[] id) {
        InboxKey key = InboxKey.of(consumer, String.join("/", id));
        return Map.of("key", key.id(), "consumer", consumer, "forgotten", operations.forget(key));
    }

    /**
     * A consumer's records by state and a page of its stuck ones.
     *
     * @param consumer the consumer
     * @param records its records by state
     * @param stuck one page of its stuck records, in id order
     * @param next the {@code after} of the next page, or null when this page was the last
     */
    public record ConsumerRecords(
            String consumer,
            RecordCounts records,
            List<InboxRecord> stuck,
            @Nullable String next) {}

    /**
     * One record as the endpoint shows it ({@link RecordView} with its times as ISO-8601 text).
     *
     * @param consumer the consumer
     * @param id the event's id
     * @param state {@code IN_PROGRESS}, {@code LEASE_ENDED}, {@code COMPLETED}, {@code
     *     RETENTION_ENDED} or {@code EXPIRED}
     * @param owner the owner token, or null for a completed record of a store that keeps none
     * @param expiresAt when its lease or retention ends
     * @param purgeAfter when it counts as absent and is removed
     * @param fingerprint its payload fingerprint, or null
     * @param resultBytes the size of its kept result, or null
     */
    public record InboxRecord(
            String consumer,
            String id,
            String state,
            @Nullable String owner,
            String expiresAt,
            String purgeAfter,
            @Nullable String fingerprint,
            @Nullable Integer resultBytes) {

        static InboxRecord of(RecordView view) {
            return new InboxRecord(
                    view.key().consumer(),
                    view.key().id(),
                    view.state().name(),
                    view.owner(),
                    view.expiresAt().toString(),
                    view.purgeAfter().toString(),
                    view.fingerprint(),
                    view.resultBytes());
        }
    }
}
