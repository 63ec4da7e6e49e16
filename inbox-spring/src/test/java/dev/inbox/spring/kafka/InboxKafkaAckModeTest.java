package dev.inbox.spring.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.spring.SpringInbox;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * Which ack modes {@link InboxKafka#configure} accepts in lease mode. The refused ones commit a
 * record's offset before the interceptor completes its claim (Spring Kafka's {@code ackCurrent}
 * runs before the record interceptor's {@code success}): a process that dies between the two leaves
 * the event applied and not recorded, never delivered again — rule A14 failed the lease-mode record
 * kit under {@code RECORD}. No broker is needed: the containers are only built, never started.
 */
class InboxKafkaAckModeTest {

    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final SpringInbox inbox =
            SpringInbox.leaseOnly(Inbox.builder(store).consumer("acks").build());

    @AfterEach
    void close() {
        store.close();
    }

    private static KafkaMessageListenerContainer<String, String> container(AckMode mode) {
        ContainerProperties properties = new ContainerProperties("acks");
        properties.setAckMode(mode);
        properties.setMessageListener(
                (org.springframework.kafka.listener.MessageListener<String, String>) record -> {});
        return new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(Map.of()), properties);
    }

    @ParameterizedTest
    @EnumSource(
            value = AckMode.class,
            names = {"RECORD", "COUNT", "TIME", "COUNT_TIME", "MANUAL_IMMEDIATE"})
    void aRecordListener_inLeaseMode_isRefused_underAnAckModeThatCommitsBeforeTheClaimIsCompleted(AckMode mode) {
        KafkaMessageListenerContainer<String, String> container = container(mode);
        assertThatThrownBy(() -> InboxKafka.configure(
                        container, new InboxRecordInterceptor<>(inbox, RecordKeys.standard()), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("AckMode." + mode)
                .hasMessageContaining("BATCH");
        assertThat(container.getRecordInterceptor()).as("nothing installed").isNull();
    }

    @ParameterizedTest
    @EnumSource(
            value = AckMode.class,
            names = {"BATCH", "MANUAL"})
    void aRecordListener_inLeaseMode_isAccepted_underAnAckModeThatCommitsAfterThePoll(AckMode mode) {
        KafkaMessageListenerContainer<String, String> container = container(mode);
        InboxRecordInterceptor<String, String> interceptor = new InboxRecordInterceptor<>(inbox, RecordKeys.standard());
        InboxKafka.configure(container, interceptor, Duration.ofSeconds(1));
        assertThat(container.getRecordInterceptor()).isSameAs(interceptor);
    }

    /** In a transaction the claim commits with the work; {@link CommitsAfterTransaction} orders the offsets. */
    @ParameterizedTest
    @EnumSource(AckMode.class)
    void aRecordListener_inATransaction_isAccepted_underEveryAckMode(AckMode mode) {
        KafkaMessageListenerContainer<String, String> container = container(mode);
        container
                .getContainerProperties()
                .setTransactionManager(new DataSourceTransactionManager(new SimpleDriverDataSource()));
        assertThatCode(() -> InboxKafka.configure(
                        container, new InboxRecordInterceptor<>(inbox, RecordKeys.standard()), Duration.ofSeconds(1)))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @EnumSource(AckMode.class)
    void aBatchListener_inLeaseMode_isRefusedOnlyUnderManualImmediate(AckMode mode) {
        KafkaMessageListenerContainer<String, String> container = container(mode);
        InboxBatchInterceptor<String, String> interceptor =
                new InboxBatchInterceptor<>(inbox, RecordKeys.standard(), Duration.ofSeconds(1));
        if (mode == AckMode.MANUAL_IMMEDIATE) {
            assertThatThrownBy(() -> InboxKafka.configure(container, interceptor, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("AckMode.MANUAL_IMMEDIATE");
        } else {
            InboxKafka.configure(container, interceptor, Duration.ofSeconds(1));
            assertThat(container.getBatchInterceptor()).isSameAs(interceptor);
        }
    }
}
