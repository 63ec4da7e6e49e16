package dev.inbox.spring.boot;

import dev.inbox.Inbox;
import dev.inbox.InboxMetrics;
import dev.inbox.InboxObserver;
import dev.inbox.jdbc.TransactionalInboxStore;
import dev.inbox.micrometer.MicrometerInboxMetrics;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.amqp.InboxRabbitAdvice;
import dev.inbox.spring.kafka.CommitsAfterTransaction;
import dev.inbox.spring.kafka.InboxRecordInterceptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.config.KafkaListenerConfigUtils;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * inbox for Spring Boot: the store chosen from the beans present ({@code inbox.store} overrides
 * the choice), the {@link Inbox} and the {@link SpringInbox} on it, meters, a health indicator,
 * info, a scheduled purge, and deduplicated {@code @KafkaListener}, {@code @RabbitListener} and
 * {@code @SqsListener} methods. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
            "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
            "io.awspring.cloud.autoconfigure.sqs.SqsAutoConfiguration"
        })
@EnableConfigurationProperties(InboxProperties.class)
@ImportRuntimeHints(InboxRuntimeHints.class)
@Import({InboxHttpConfiguration.class, InboxReactiveHttpConfiguration.class})
public class InboxAutoConfiguration {

    /** Warns of {@code inbox.*} properties no setting reads (a misspelt one leaves its default in force). */
    @Bean
    static InboxUnknownProperties inboxUnknownProperties(Environment environment) {
        return new InboxUnknownProperties(environment);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    InboxStore inboxStore(InboxProperties properties, ListableBeanFactory beans, ResourceLoader resources) {
        return new InboxStores(properties, beans, resources.getClassLoader()).create();
    }

    @Bean
    @ConditionalOnMissingBean
    Inbox inbox(
            InboxStore store,
            InboxProperties properties,
            Environment environment,
            ObjectProvider<InboxMetrics> metrics,
            ObjectProvider<InboxObserver> observer) {
        String consumer = properties.getConsumer() != null
                ? properties.getConsumer()
                : environment.getProperty("spring.application.name");
        if (consumer == null || consumer.isBlank()) {
            throw new InboxStartupException(
                    "The inbox has no consumer name: neither inbox.consumer nor spring.application.name is set.",
                    "Set inbox.consumer (or spring.application.name): the logical consumer whose events the"
                            + " records scope, the same on every instance of this service.",
                    null);
        }
        if (properties.isCheckStore()) {
            InboxStoreCheck.verify(store, consumer);
        }
        Inbox.Builder builder = Inbox.builder(store)
                .consumer(consumer)
                .retention(properties.getRetention())
                .lease(properties.getLease());
        if (properties.getMaxInHand() != null) {
            builder.maxInHand(properties.getMaxInHand());
        }
        metrics.ifAvailable(builder::metrics);
        observer.ifAvailable(builder::observer);
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    SpringInbox springInbox(Inbox inbox, ObjectProvider<DataSource> dataSource) {
        DataSource source = dataSource.getIfUnique();
        return inbox.store() instanceof TransactionalInboxStore && source != null
                ? SpringInbox.joining(inbox, source)
                : SpringInbox.leaseOnly(inbox);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "inbox.purge", name = "enabled", matchIfMissing = true)
    InboxPurgeScheduler inboxPurgeScheduler(Inbox inbox, InboxProperties properties) {
        return new InboxPurgeScheduler(inbox, properties.getPurge().getInterval());
    }

    /**
     * The key function of a broker's listeners: the application's own bean of its type if it has
     * one, else the producer's header {@code inbox.<broker>.key-header} names, else the standard
     * keys. Both a bean and the property is a configuration the starter cannot read one way: it
     * refuses it rather than pick one silently.
     *
     * @throws IllegalStateException if the application has both
     */
    static <T> T keys(
            ObjectProvider<T> bean,
            @Nullable String header,
            String property,
            Function<String, T> fromHeader,
            Supplier<T> standard) {
        T own = bean.getIfUnique();
        if (own != null && header != null) {
            throw new IllegalStateException(property + "=" + header + " and the application's "
                    + own.getClass().getName() + " bean both say where the dedup key is: remove the"
                    + " property (the bean is used) or the bean");
        }
        return own != null ? own : header != null ? fromHeader.apply(header) : standard.get();
    }

    /**
     * {@link #keys}, refusing copies older than the retention ({@code refusing}: the key type's
     * {@code refusingCopiesOlderThan}) when {@code inbox.refuse-expired-copies} is set. Public for
     * the inbox's auto-configurations in other modules (the Kafka share listeners'), so that every
     * listener reads its keys the same way.
     *
     * @throws IllegalStateException if the application has both a key bean and the property
     */
    public static <T> T keys(
            ObjectProvider<T> bean,
            @Nullable String header,
            String property,
            Function<String, T> fromHeader,
            Supplier<T> standard,
            InboxProperties settings,
            java.util.function.BiFunction<T, java.time.Duration, T> refusing) {
        T keys = keys(bean, header, property, fromHeader, standard);
        return settings.isRefuseExpiredCopies() ? refusing.apply(keys, settings.getRetention()) : keys;
    }

    /**
     * The transaction manager a transactional listener runs in: the unique one of the context,
     * else one on the inbox's DataSource.
     */
    static PlatformTransactionManager transactionManager(
            SpringInbox inbox, ObjectProvider<PlatformTransactionManager> transactions, String property) {
        DataSource dataSource = inbox.dataSource();
        if (dataSource == null) {
            throw new IllegalStateException(property + "=true needs a store that joins transactions (inbox-postgres"
                    + " or inbox-mysql) on the DataSource, but the store is "
                    + inbox.inbox().store());
        }
        PlatformTransactionManager manager = transactions.getIfUnique();
        return manager != null ? manager : new DataSourceTransactionManager(dataSource);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MicrometerInboxMetrics.class})
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean(InboxMetrics.class)
        @ConditionalOnBean(MeterRegistry.class)
        InboxMetrics inboxMetrics(MeterRegistry registry) {
            return MicrometerInboxMetrics.of(registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ObservationRegistry.class, ObservationInboxObserver.class})
    static class Observations {

        /** Observations of each claim, work, completion and purge, for tracing. */
        @Bean
        @ConditionalOnMissingBean(InboxObserver.class)
        @ConditionalOnBean(ObservationRegistry.class)
        InboxObserver inboxObserver(ObservationRegistry registry) {
            return ObservationInboxObserver.of(registry);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "inboxHealthIndicator")
        InboxHealthIndicator inboxHealthIndicator(Inbox inbox) {
            return new InboxHealthIndicator(inbox);
        }

        /**
         * DOWN while a deduplicated {@code @KafkaListener}'s container stands stopped by its error
         * handler (a record without a dedup key): the application is up, but that listener consumes
         * nothing until someone looks.
         */
        @Bean
        @ConditionalOnClass(name = "org.springframework.kafka.config.KafkaListenerEndpointRegistry")
        @ConditionalOnMissingBean(name = "inboxKafkaListenersHealthIndicator")
        HealthIndicator inboxKafkaListenersHealthIndicator(ObjectProvider<InboxKafkaListeners> listeners) {
            return () -> {
                InboxKafkaListeners wired = listeners.getIfAvailable();
                List<String> stopped = wired == null ? List.of() : wired.stoppedAbnormally();
                return stopped.isEmpty()
                        ? org.springframework.boot.health.contributor.Health.up()
                                .build()
                        : org.springframework.boot.health.contributor.Health.down()
                                .withDetail("stopped", stopped)
                                .withDetail(
                                        "why",
                                        "stopped by their error handler, at a record the inbox could not key (see the"
                                                + " log) or another failure the handler stops on; start them again"
                                                + " once it is dealt with")
                                .build();
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({
        org.springframework.boot.actuate.endpoint.annotation.Endpoint.class,
        org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint.class
    })
    static class Endpoint {

        /** The {@code inbox} endpoint, when exposed, for a store that offers the admin operations. */
        @Bean
        @ConditionalOnMissingBean
        @org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint
        InboxEndpoint inboxEndpoint(Inbox inbox) {
            return new InboxEndpoint(inbox);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(InfoContributor.class)
    static class Info {

        @Bean
        @ConditionalOnMissingBean(name = "inboxInfoContributor")
        InfoContributor inboxInfoContributor(Inbox inbox, InboxProperties properties) {
            return builder -> {
                Map<String, Object> details = new LinkedHashMap<>();
                details.put("consumer", inbox.consumer());
                details.put("store", inbox.store().toString());
                details.put("retention", inbox.retention().toString());
                details.put("lease", inbox.lease().toString());
                if (properties.getGrace() != null) {
                    details.put("grace", properties.getGrace().toString());
                }
                details.put(
                        "purge",
                        properties.getPurge().isEnabled()
                                ? "every " + properties.getPurge().getInterval()
                                : "off");
                builder.withDetail("inbox", details);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({
        KafkaListenerEndpointRegistry.class,
        InboxRecordInterceptor.class,
        dev.inbox.kafka.RecordKeys.class
    })
    @ConditionalOnProperty(prefix = "inbox.kafka", name = "enabled", matchIfMissing = true)
    static class Kafka {

        /**
         * With {@code inbox.kafka.transactional=true}, every consumer factory of the application
         * commits offsets only after the listener's database transaction commits ({@link
         * CommitsAfterTransaction}): Spring Kafka commits a batch listener's offsets inside it.
         */
        @Bean
        @ConditionalOnProperty(prefix = "inbox.kafka", name = "transactional", havingValue = "true")
        static BeanPostProcessor inboxKafkaCommitsAfterTransaction() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    if (bean instanceof ConsumerFactory<?, ?> factory) {
                        commitAfterTransactions(factory);
                    }
                    return bean;
                }
            };
        }

        private static <K, V> void commitAfterTransactions(ConsumerFactory<K, V> factory) {
            factory.addPostProcessor(new CommitsAfterTransaction<>());
        }

        @Bean
        @ConditionalOnBean(name = KafkaListenerConfigUtils.KAFKA_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME)
        @ConditionalOnMissingBean
        InboxKafkaListeners inboxKafkaListeners(
                ListableBeanFactory beans,
                SpringInbox inbox,
                InboxProperties properties,
                ObjectProvider<PlatformTransactionManager> transactions,
                ObjectProvider<dev.inbox.kafka.RecordKeys> keys) {
            InboxProperties.KafkaListeners settings = properties.getKafka();
            return new InboxKafkaListeners(
                    beans.getBean(
                            KafkaListenerConfigUtils.KAFKA_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME,
                            KafkaListenerEndpointRegistry.class),
                    inbox,
                    settings,
                    keys(
                            keys,
                            settings.getKeyHeader(),
                            "inbox.kafka.key-header",
                            dev.inbox.kafka.RecordKeys::header,
                            dev.inbox.kafka.RecordKeys::standard,
                            properties,
                            dev.inbox.kafka.RecordKeys::refusingCopiesOlderThan),
                    settings.isTransactional()
                            ? transactionManager(inbox, transactions, "inbox.kafka.transactional")
                            : null,
                    beans.getBeanNamesForType(AfterRollbackProcessor.class).length > 0);
        }
    }

    /**
     * Spring Kafka without inbox-kafka: the listeners would silently stay undeduplicated, so the
     * startup fails and says which dependency to add.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.kafka.config.KafkaListenerEndpointRegistry")
    @ConditionalOnMissingClass("dev.inbox.kafka.RecordKeys")
    @ConditionalOnProperty(prefix = "inbox.kafka", name = "enabled", matchIfMissing = true)
    static class KafkaAdapterMissing {

        @Bean
        Object inboxKafkaAdapterMissing() {
            throw new IllegalStateException("inbox: spring-kafka is on the class path but inbox-kafka is not: add the"
                    + " dependency dev.inbox:inbox-kafka so that @KafkaListener methods are deduplicated, or set"
                    + " inbox.kafka.enabled=false");
        }
    }

    /** Spring AMQP without inbox-rabbitmq: as {@link KafkaAdapterMissing}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory")
    @ConditionalOnMissingClass("dev.inbox.rabbitmq.MessageKeys")
    @ConditionalOnProperty(prefix = "inbox.rabbit", name = "enabled", matchIfMissing = true)
    static class RabbitAdapterMissing {

        @Bean
        Object inboxRabbitAdapterMissing() {
            throw new IllegalStateException("inbox: spring-rabbit is on the class path but inbox-rabbitmq is not: add"
                    + " the dependency dev.inbox:inbox-rabbitmq so that @RabbitListener methods are deduplicated, or"
                    + " set inbox.rabbit.enabled=false");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({
        org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory.class,
        InboxRabbitAdvice.class,
        dev.inbox.rabbitmq.MessageKeys.class
    })
    @ConditionalOnProperty(prefix = "inbox.rabbit", name = "enabled", matchIfMissing = true)
    static class Rabbit {

        @Bean
        static InboxRabbitListeners inboxRabbitListeners(
                ObjectProvider<SpringInbox> inbox,
                ObjectProvider<InboxProperties> properties,
                ObjectProvider<PlatformTransactionManager> transactions,
                ObjectProvider<dev.inbox.rabbitmq.MessageKeys> keys) {
            return new InboxRabbitListeners(inbox, properties, transactions, keys);
        }

        @Bean
        @ConditionalOnBean(
                name =
                        org.springframework.amqp.rabbit.config.RabbitListenerConfigUtils
                                .RABBIT_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME)
        @ConditionalOnMissingBean
        InboxRabbitAckModes inboxRabbitAckModes(ListableBeanFactory beans) {
            return new InboxRabbitAckModes(beans.getBean(
                    org.springframework.amqp.rabbit.config.RabbitListenerConfigUtils
                            .RABBIT_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME,
                    org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry.class));
        }
    }

    /** Spring Cloud AWS SQS without inbox-sqs: as {@link KafkaAdapterMissing}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.awspring.cloud.sqs.config.SqsListenerConfigurer")
    @ConditionalOnMissingClass("dev.inbox.sqs.SqsKeys")
    @ConditionalOnProperty(prefix = "inbox.sqs", name = "enabled", matchIfMissing = true)
    static class SqsAdapterMissing {

        @Bean
        Object inboxSqsAdapterMissing() {
            throw new IllegalStateException("inbox: spring-cloud-aws-sqs is on the class path but inbox-sqs is not:"
                    + " add the dependency dev.inbox:inbox-sqs so that @SqsListener methods are deduplicated, or set"
                    + " inbox.sqs.enabled=false");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({
        io.awspring.cloud.sqs.config.SqsListenerConfigurer.class,
        dev.inbox.spring.sqs.InboxSqsListeners.class,
        dev.inbox.sqs.SqsKeys.class
    })
    @ConditionalOnProperty(prefix = "inbox.sqs", name = "enabled", matchIfMissing = true)
    static class Sqs {

        @Bean
        @ConditionalOnBean(io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry.class)
        @ConditionalOnMissingBean
        dev.inbox.spring.sqs.InboxSqsListeners inboxSqsListeners(
                SpringInbox inbox,
                InboxProperties properties,
                io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry registry,
                ObjectProvider<dev.inbox.sqs.SqsKeys> keys) {
            InboxProperties.Listeners settings = properties.getSqs();
            if (settings.isTransactional()) {
                throw new IllegalStateException("inbox.sqs.transactional=true: Spring Cloud AWS runs @SqsListener"
                        + " methods in no transaction of its own, so the claim cannot share one with them; remove the"
                        + " property, and for writes that must commit with their claim call SpringInbox.handle inside"
                        + " your own @Transactional method");
            }
            return new dev.inbox.spring.sqs.InboxSqsListeners(
                    inbox,
                    keys(
                            keys,
                            settings.getKeyHeader(),
                            "inbox.sqs.key-header",
                            dev.inbox.sqs.SqsKeys::attribute,
                            dev.inbox.sqs.SqsKeys::standard,
                            properties,
                            dev.inbox.sqs.SqsKeys::refusingCopiesOlderThan),
                    settings.getBusyBackoff(),
                    registry);
        }
    }
}
