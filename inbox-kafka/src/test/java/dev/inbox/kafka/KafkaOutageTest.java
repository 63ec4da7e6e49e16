package dev.inbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.tck.adapter.Outage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The adapter kit's outage on a Kafka consumer (kafka-clients' in-memory consumer, no broker needed). */
class KafkaOutageTest {

    @Test
    void duringTheOutage_pollFindsNothing_andCommitSyncTimesOut_thenBothReachTheConsumerAgain() {
        TopicPartition partition = new TopicPartition("t", 0);
        MockConsumer<String, String> real = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
        real.assign(List.of(partition));
        real.updateBeginningOffsets(Map.of(partition, 0L));
        real.addRecord(new ConsumerRecord<>("t", 0, 0, "k", "v"));
        Outage outage = new Outage();
        Consumer<String, String> consumer = outage.kafkaConsumer(Consumer.class, real);

        outage.begin();
        assertThat(consumer.poll(Duration.ofMillis(10)).isEmpty()).isTrue();
        assertThatThrownBy(() -> consumer.commitSync(Map.of(partition, new OffsetAndMetadata(1))))
                .isInstanceOf(TimeoutException.class);
        assertThat(real.committed(java.util.Set.of(partition)).get(partition)).isNull();

        outage.end();
        assertThat(consumer.poll(Duration.ofMillis(10)).count()).isEqualTo(1);
        consumer.commitSync(Map.of(partition, new OffsetAndMetadata(1)));
        assertThat(real.committed(java.util.Set.of(partition)).get(partition).offset())
                .isEqualTo(1);
    }
}
