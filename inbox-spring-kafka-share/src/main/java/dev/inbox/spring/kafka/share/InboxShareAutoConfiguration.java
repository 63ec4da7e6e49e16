package dev.inbox.spring.kafka.share;

import dev.inbox.Inbox;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.boot.InboxAutoConfiguration;
import dev.inbox.spring.boot.InboxProperties;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.core.ShareConsumerFactory;

/**
 * Spring Boot: with the inbox starter and this module, a share-group {@code @KafkaListener} that
 * names {@value #FACTORY} is deduplicated.
 *
 * <pre>{@code
 * @KafkaListener(topics = "orders", groupId = "billing", containerFactory = "inboxShareListenerContainerFactory")
 * void on(String order) { … }
 * }</pre>
 *
 * <p>The factory is an {@link InboxShareContainerFactory} over the starter's {@link Inbox}, in lease
 * mode, or with {@code inbox.kafka.transactional=true} in transactional mode on the inbox's {@code
 * DataSource} (the listener's {@code JdbcTemplate} writes and the claim in one transaction): share consumers from the application's {@link ShareConsumerFactory} bean, or else from
 * {@code spring.kafka.*} (the consumer settings a share consumer takes); the dedup key from the
 * application's {@link RecordKeys} bean, else {@code inbox.kafka.key-header}, else a CloudEvent's
 * or the Debezium outbox's id; a record found BUSY or whose listener threw held and tried again
 * every {@code inbox.kafka.busy-backoff}. Off with {@code inbox.kafka.enabled=false}; an
 * application's own bean of that name replaces it.
 */
@AutoConfiguration(
        after = InboxAutoConfiguration.class,
        afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaProperties.class, InboxAutoConfiguration.class})
@ConditionalOnBean(Inbox.class)
@ConditionalOnProperty(prefix = "inbox.kafka", name = "enabled", matchIfMissing = true)
public class InboxShareAutoConfiguration {

    /** The bean name to give {@code @KafkaListener(containerFactory = …)}. */
    public static final String FACTORY = "inboxShareListenerContainerFactory";

    /** The classic consumer's settings a share consumer refuses. */
    private static final List<String> CLASSIC_ONLY = List.of(
            "group.protocol",
            "enable.auto.commit",
            "auto.offset.reset",
            "auto.commit.interval.ms",
            "isolation.level",
            "partition.assignment.strategy",
            "group.instance.id");

    @Bean(FACTORY)
    @ConditionalOnMissingBean(name = FACTORY)
    InboxShareContainerFactory<Object, Object> inboxShareListenerContainerFactory(
            Inbox inbox,
            SpringInbox springInbox,
            InboxProperties properties,
            ObjectProvider<ShareConsumerFactory<Object, Object>> consumers,
            ObjectProvider<KafkaProperties> kafka,
            ObjectProvider<RecordKeys> keys) {
        InboxProperties.KafkaListeners settings = properties.getKafka();
        RecordKeys recordKeys = keys(keys.getIfUnique(), settings.getKeyHeader());
        if (properties.isRefuseExpiredCopies()) {
            recordKeys = recordKeys.refusingCopiesOlderThan(properties.getRetention());
        }
        RecordKeys chosen = recordKeys;
        Duration backoff = settings.getBusyBackoff();
        ShareConsumerFactory<Object, Object> shareConsumers = consumers(consumers, kafka);
        InboxShareContainerFactory<Object, Object> factory;
        if (settings.isTransactional()) {
            DataSource dataSource = springInbox.dataSource();
            if (dataSource == null) {
                throw new IllegalStateException("inbox.kafka.transactional=true needs a store that joins transactions"
                        + " (inbox-postgres or inbox-mysql) on the DataSource, but the store is " + inbox.store());
            }
            factory = InboxShareContainerFactory.transactional(shareConsumers, inbox, dataSource);
        } else {
            factory = InboxShareContainerFactory.lease(shareConsumers, inbox);
        }
        return factory.configureLoops(
                loop -> loop.keys(chosen).busyBackoff(backoff).failureBackoff(backoff));
    }

    private static RecordKeys keys(@Nullable RecordKeys own, @Nullable String header) {
        if (own != null && header != null) {
            throw new IllegalStateException("inbox.kafka.key-header=" + header + " and the application's "
                    + own.getClass().getName() + " bean both say where the dedup key is: remove the property (the"
                    + " bean is used) or the bean");
        }
        return own != null ? own : header != null ? RecordKeys.header(header) : RecordKeys.standard();
    }

    private static ShareConsumerFactory<Object, Object> consumers(
            ObjectProvider<ShareConsumerFactory<Object, Object>> consumers, ObjectProvider<KafkaProperties> kafka) {
        ShareConsumerFactory<Object, Object> own = consumers.getIfUnique();
        if (own != null) {
            return own;
        }
        KafkaProperties settings = kafka.getIfAvailable();
        if (settings == null) {
            throw new IllegalStateException("inbox: no ShareConsumerFactory bean and no spring.kafka settings to"
                    + " make share consumers from: define a ShareConsumerFactory bean, or set"
                    + " inbox.kafka.enabled=false");
        }
        Map<String, Object> config = new HashMap<>(settings.buildConsumerProperties());
        CLASSIC_ONLY.forEach(config::remove);
        return new DefaultShareConsumerFactory<>(config);
    }
}
