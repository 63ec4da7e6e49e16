package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.inbox.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A windowed consumer's acknowledgements on a real channel ({@link TestServers#rabbitmq()}): one
 * {@code multiple} acknowledgement only where it settles exactly the window's done deliveries.
 * What a channel left unacknowledged goes back to the queue when it closes, so the queue's count
 * afterwards is what was not settled.
 */
class AcknowledgementsTest {

    private Connection connection;
    private Channel channel;
    private String queue;

    @BeforeEach
    void connect() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        connection = factory.newConnection("inbox-acknowledgements-test");
        Channel setUp = connection.createChannel();
        queue = "acks-" + UUID.randomUUID();
        setUp.queueDeclare(queue, false, false, true, null);
        for (int i = 0; i < 6; i++) {
            setUp.basicPublish("", queue, null, ("m" + i).getBytes());
        }
        setUp.close();
        channel = connection.createChannel();
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
    }

    /** Takes {@code n} deliveries off the queue unacknowledged, as a window gathers them. */
    private List<Long> receive(Acknowledgements acks, int n) throws Exception {
        List<Long> tags = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GetResponse got = channel.basicGet(queue, false);
            assertThat(got).as("delivery %d", i).isNotNull();
            acks.received(got.getEnvelope().getDeliveryTag());
            tags.add(got.getEnvelope().getDeliveryTag());
        }
        return tags;
    }

    /** Closes the channel and returns how many messages are back on the queue (never acknowledged). */
    private long unsettledAfterClose() throws Exception {
        channel.close();
        try (Channel check = connection.createChannel()) {
            return check.queueDeclarePassive(queue).getMessageCount();
        }
    }

    @Test
    void aWholeWindow_isAcknowledgedInOne_andSettlesEveryDelivery() throws Exception {
        Acknowledgements acks = new Acknowledgements(channel, true);
        List<Long> window = receive(acks, 3);

        assertThat(acks.coversExactly(window)).isTrue();
        acks.ackAll(window);

        assertThat(unsettledAfterClose())
                .as("back on the queue: the three not taken")
                .isEqualTo(3);
    }

    @Test
    void aWindowWithAHeldDelivery_isAcknowledgedOneByOne_leavingTheHeldOneUnsettled() throws Exception {
        Acknowledgements acks = new Acknowledgements(channel, true);
        List<Long> window = receive(acks, 3);
        List<Long> done = List.of(window.get(0), window.get(2)); // the middle one held (BUSY)

        assertThat(acks.coversExactly(done))
                .as("a multiple ack would settle the held one too")
                .isFalse();
        acks.ackAll(done);

        assertThat(unsettledAfterClose())
                .as("the held one and the three not taken")
                .isEqualTo(4);
    }

    @Test
    void afterAGapInTheTags_theChannelCountsAsShared_andNoAckIsMultiple() throws Exception {
        Acknowledgements acks = new Acknowledgements(channel, true);
        GetResponse other = channel.basicGet(queue, false); // another consumer's delivery on the channel, tag 1
        assertThat(other).isNotNull();
        List<Long> window = receive(acks, 2); // tags 2 and 3: the first does not follow this consumer's last

        assertThat(acks.coversExactly(window)).isFalse();
        acks.ackAll(window);

        assertThat(unsettledAfterClose())
                .as("the other consumer's one and the three not taken")
                .isEqualTo(4);
    }
}
