package dev.inbox.benchmarks.adapters;

import dev.inbox.Inbox;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.postgres.PostgresInboxStore;
import dev.inbox.spring.SpringInbox;
import dev.inbox.spring.kafka.InboxBatchInterceptor;
import dev.inbox.spring.kafka.InboxKafka;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@code spring-batch} variant: a Spring Kafka batch listener in a {@code
 * DataSourceTransactionManager} transaction, behind {@link InboxBatchInterceptor} joined to that
 * transaction — what the Boot starter wires for a batch {@code @KafkaListener} with {@code
 * inbox.kafka.transactional=true} ({@link InboxKafka#configure}). Each poll: the interceptor claims
 * the batch inside the container's transaction, the listener inserts one business row per record on
 * the transaction's connection, the container commits, then the offsets. A record counts once its
 * transaction committed.
 */
final class SpringBatchKafka {

    private SpringBatchKafka() {}

    /** Starts {@code consumers} listener threads on {@code topic}; stop the returned container. */
    static ConcurrentMessageListenerContainer<String, String> start(
            String bootstrap,
            String topic,
            int consumers,
            DataSource pool,
            PostgresInboxStore store,
            String table,
            LongAdder consumed) {
        Map<String, Object> properties = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                "inbox-adapters-" + UUID.randomUUID(),
                ConsumerConfig.GROUP_PROTOCOL_CONFIG,
                "consumer",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                500,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class);
        ContainerProperties container = new ContainerProperties(topic);
        container.setPollTimeout(50);
        container.setTransactionManager(new DataSourceTransactionManager(pool));
        ConcurrentMessageListenerContainer<String, String> listeners =
                new ConcurrentMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(properties), container);
        listeners.setConcurrency(consumers);
        listeners.setupMessageListener((BatchMessageListener<String, String>) records -> {
            Connection connection = DataSourceUtils.getConnection(pool);
            try {
                for (ConsumerRecord<String, String> record : records) {
                    insert(connection, table, record);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } finally {
                DataSourceUtils.releaseConnection(connection, pool);
            }
            int count = records.size();
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    consumed.add(count);
                }
            });
        });
        SpringInbox inbox = SpringInbox.joining(
                Inbox.builder(store).consumer("adapters-" + UUID.randomUUID()).build(), pool);
        InboxKafka.configure(
                listeners,
                new InboxBatchInterceptor<String, String>(inbox, RecordKeys.cloudEvents(), Duration.ofMillis(100)),
                Duration.ofMillis(100));
        listeners.start();
        return listeners;
    }

    /** The business row of one Kafka record: every transactional variant inserts the same. */
    static void insert(Connection connection, String table, ConsumerRecord<String, String> record) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
            insert.setString(1, record.topic() + "-" + record.offset());
            insert.setInt(2, Integer.parseInt(record.value()));
            insert.executeUpdate();
        }
    }
}
