package dev.inbox.spring.kafka.share;

import static dev.inbox.spi.InboxArguments.requireNonNull;

import dev.inbox.Inbox;
import dev.inbox.jdbc.TransactionalInbox;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.kafka.KafkaShareInboxLoop;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.ShareConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ShareConsumerRecordRecoverer;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

/**
 * A share-group listener container factory whose containers run every record through the inbox:
 * name it in {@code @KafkaListener(containerFactory = …)} and each record's event is claimed, your
 * listener method runs for a new one, the claim is completed, and only then is the record
 * acknowledged {@code ACCEPT}. A duplicate is acknowledged without calling the method.
 *
 * <pre>{@code
 * @Bean
 * InboxShareContainerFactory<String, String> inboxShares(ShareConsumerFactory<String, String> consumers, Inbox inbox) {
 *     return InboxShareContainerFactory.lease(consumers, inbox)
 *             .configureLoops(loop -> loop.keys(RecordKeys.header("event-id")));
 * }
 *
 * @KafkaListener(topics = "orders", groupId = "billing", containerFactory = "inboxShares")
 * void on(String order) { … } // called for a new event; a duplicate is accepted without a call
 * }</pre>
 *
 * <p>Each container member is a {@link KafkaShareInboxLoop} in lease mode over a share consumer of
 * the given factory, so a Spring share listener behaves exactly as that loop does: the method runs
 * on the loop's worker thread while the polling thread keeps the record's acquisition lock renewed
 * ({@code AcknowledgeType.RENEW}, needs the group config {@code
 * share.renew.acknowledge.enable=true}) and the claim renewed; a record found BUSY or whose method
 * threw is <em>held</em> and tried again in place after the back-off, never released, so waiting
 * never burns its delivery count; a record the {@linkplain KafkaShareInboxLoop.Builder#failurePolicy
 * failure policy} gives up on goes to the {@linkplain KafkaShareInboxLoop.Builder#recoverer
 * recoverer} (none: retried for ever). Configure all of that with {@link #configureLoops}.
 *
 * <p>Each share group is an inbox consumer of its own, {@code <inbox's consumer>/<group id>}: two
 * listeners of different groups that receive the same event each apply it; the members of
 * one group share its claims, as they share its records.
 *
 * <p>The inbox acknowledges every record itself, so a container's {@code ShareAckMode} must stay at
 * its default ({@code EXPLICIT}): {@code MANUAL} is refused when a container is created, and the
 * listener method is given no {@code ShareAcknowledgment} (nor the consumer, which belongs to the
 * polling thread). Spring's {@link ShareConsumerRecordRecoverer} is not used: set the loop's
 * recoverer instead. Batch listeners are refused, as share containers refuse them.
 *
 * <p>In {@linkplain #lease lease mode} a process that dies after your method ran but before the
 * claim was completed runs it again on redelivery, once the lease has expired; in {@linkplain
 * #transactional transactional mode} the claim and the method's JDBC writes commit together, so it
 * cannot. See the module's README for what to configure on the group.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 */
public final class InboxShareContainerFactory<K, V> extends ShareKafkaListenerContainerFactory<K, V> {

    private final ShareConsumerFactory<K, V> consumers;
    private final Inbox inbox;
    /** Transactional mode's database; null in lease mode. */
    private final @Nullable DataSource dataSource;

    private Consumer<? super KafkaShareInboxLoop.Builder<K, V>> loopSettings = loop -> {};

    private InboxShareContainerFactory(
            ShareConsumerFactory<K, V> consumers, Inbox inbox, @Nullable DataSource dataSource) {
        super(consumers);
        this.consumers = consumers;
        this.inbox = inbox;
        this.dataSource = dataSource;
    }

    /**
     * A factory of containers in lease mode: each record's event claimed in {@code inbox} (under
     * the consumer {@code <inbox's consumer>/<group id>}), kept
     * renewed while the listener method runs, and completed before the record is accepted.
     *
     * @throws IllegalArgumentException if an argument is null
     */
    public static <K, V> InboxShareContainerFactory<K, V> lease(ShareConsumerFactory<K, V> consumers, Inbox inbox) {
        return new InboxShareContainerFactory<>(
                requireNonNull(consumers, "consumers"), requireNonNull(inbox, "inbox"), null);
    }

    /**
     * A factory of containers in transactional mode: each record's event claimed inside a
     * transaction of {@code dataSource} (under the consumer {@code <inbox's consumer>/<group id>}),
     * the listener method run inside it, and the record accepted once it committed — exactly once
     * for the method's writes to that database, crashes and lapsed locks included ({@link
     * KafkaShareInboxLoop#transactional}). While the method runs, the transaction's connection is the
     * one Spring's JDBC support hands out for {@code dataSource} ({@code JdbcTemplate}, {@code
     * JdbcClient}, {@code DataSourceUtils}), so those writes join it. Do not open a transaction of
     * your own in the method ({@code @Transactional}): it would commit the claim and your writes
     * early, on its own. A method that throws rolls the transaction back and the record is held
     * and retried, as in lease mode.
     *
     * @param inbox on a store that writes its claims in the caller's transaction (PostgreSQL,
     *     MySQL/MariaDB), on the database of {@code dataSource}
     * @throws IllegalArgumentException if an argument is null, or the inbox's store cannot join a
     *     transaction
     */
    public static <K, V> InboxShareContainerFactory<K, V> transactional(
            ShareConsumerFactory<K, V> consumers, Inbox inbox, DataSource dataSource) {
        requireNonNull(inbox, "inbox");
        if (!(inbox.store() instanceof TransactionalInboxStore)) {
            throw new IllegalArgumentException(
                    "transactional mode needs a store that joins a transaction" + " (inbox-postgres, inbox-mysql), not "
                            + inbox.store().getClass().getName());
        }
        return new InboxShareContainerFactory<>(
                requireNonNull(consumers, "consumers"), inbox, requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Settings for each member's loop, applied to its {@link KafkaShareInboxLoop.Builder} as it is
     * built: where the dedup key comes from ({@code keys}, by default the {@code event-id} header),
     * back-offs, the failure policy, the recoverer and the missing-key recoverer.
     *
     * @return this factory
     * @throws IllegalArgumentException if {@code settings} is null
     */
    public InboxShareContainerFactory<K, V> configureLoops(
            Consumer<? super KafkaShareInboxLoop.Builder<K, V>> settings) {
        this.loopSettings = requireNonNull(settings, "settings");
        return this;
    }

    /**
     * Not used by these containers: a record the inbox gives up on goes to the loop's recoverer.
     *
     * @throws UnsupportedOperationException always, naming what to use instead
     */
    @Override
    public void setShareConsumerRecordRecoverer(ShareConsumerRecordRecoverer recordRecoverer) {
        throw new UnsupportedOperationException("the inbox's share containers recover records with the loop's"
                + " recoverer: configureLoops(loop -> loop.recoverer(...))");
    }

    @Override
    protected ShareKafkaMessageListenerContainer<K, V> createContainerInstance(KafkaListenerEndpoint endpoint) {
        if (getContainerProperties().getShareAckMode() != ContainerProperties.ShareAckMode.EXPLICIT) {
            throw new IllegalArgumentException("the inbox acknowledges each record itself once its event is applied:"
                    + " leave the share acknowledgement mode at EXPLICIT, not "
                    + getContainerProperties().getShareAckMode());
        }
        if (endpoint.getTopics().isEmpty()) {
            throw new IllegalArgumentException(
                    "a share listener needs topics (share groups take no patterns or" + " partitions)");
        }
        return new InboxShareListenerContainer<>(
                consumers,
                new ContainerProperties(endpoint.getTopics().toArray(new String[0])),
                (consumer, handler, group) -> {
                    Inbox scoped = inbox.withConsumer(inbox.consumer() + "/" + group);
                    KafkaShareInboxLoop.Builder<K, V> loop = dataSource == null
                            ? KafkaShareInboxLoop.lease(consumer, scoped, handler)
                            : KafkaShareInboxLoop.transactional(
                                    consumer,
                                    TransactionalInbox.builder((TransactionalInboxStore) scoped.store(), dataSource)
                                            .consumer(scoped.consumer())
                                            .retention(scoped.retention())
                                            .metrics(scoped.metrics())
                                            .observer(scoped.observer())
                                            .build(),
                                    (record, connection) ->
                                            BoundConnection.run(dataSource, connection, () -> handler.handle(record)));
                    loopSettings.accept(loop);
                    return loop.build();
                });
    }
}
