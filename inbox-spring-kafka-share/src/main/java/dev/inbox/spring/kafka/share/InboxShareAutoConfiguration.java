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
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
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
@ConditionalOnClass(
        value = {KafkaProperties.class, InboxAutoConfiguration.class},
        name = InboxShareAutoConfiguration.SPRING_KAFKA_4_1)
@ConditionalOnBean(Inbox.class)
@ConditionalOnProperty(prefix = "inbox.kafka", name = "enabled", matchIfMissing = true)
public class InboxShareAutoConfiguration {

    /** The bean name to give {@code @KafkaListener(containerFactory = …)}. */
    public static final String FACTORY = "inboxShareListenerContainerFactory";

    /** A class Spring Kafka has from 4.1 on, which the containers use. */
    static final String SPRING_KAFKA_4_1 = "org.springframework.kafka.listener.ContainerProperties$ShareAckMode";

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
        RecordKeys chosen = InboxAutoConfiguration.keys(
                keys,
                settings.getKeyHeader(),
                "inbox.kafka.key-header",
                RecordKeys::header,
                RecordKeys::standard,
                properties,
                RecordKeys::refusingCopiesOlderThan);
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

    /**
     * This module on an older Spring Kafka — what {@code spring-boot-starter-parent} 4.0 gives, as it
     * manages 4.0.x — would leave every share listener without the factory it names: the startup
     * fails and says which version to set.
     */
    @AutoConfiguration
    @ConditionalOnClass(InboxAutoConfiguration.class)
    @ConditionalOnMissingClass(SPRING_KAFKA_4_1)
    @ConditionalOnProperty(prefix = "inbox.kafka", name = "enabled", matchIfMissing = true)
    public static class SpringKafkaTooOld {

        @Bean
        Object inboxShareSpringKafkaTooOld() {
            throw new IllegalStateException("inbox: inbox-spring-kafka-share needs Spring Kafka 4.1 or newer, but an"
                    + " older one is on the class path (spring-boot-starter-parent and Spring Boot's BOM 4.0 manage"
                    + " 4.0.x): set the property spring-kafka.version to 4.1.2 (Maven) or manage"
                    + " org.springframework.kafka:spring-kafka 4.1.2, or remove inbox-spring-kafka-share");
        }
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
