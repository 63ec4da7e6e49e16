package dev.inbox.tck.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class OutageTest {

    /** A client with one call that reaches the broker. */
    interface Client {
        String fetch(String what) throws IOException;
    }

    @Test
    void duringTheOutage_theNamedCallsAnswerInstead_andOutsideItTheRealClientDoes() throws Exception {
        Outage outage = new Outage();
        Client client = outage.wrap(Client.class, what -> "real " + what, Map.of("fetch", args -> {
            throw new IOException("cut while fetching " + args[0]);
        }));
        assertThat(client.fetch("a")).isEqualTo("real a");
        outage.begin();
        assertThat(outage.isOn()).isTrue();
        assertThatThrownBy(() -> client.fetch("b"))
                .isInstanceOf(IOException.class)
                .hasMessage("cut while fetching b");
        outage.end();
        assertThat(client.fetch("c")).isEqualTo("real c");
    }

    @Test
    void aCallTheOutageDoesNotName_reachesTheRealClient_andItsExceptionIsItsOwn() {
        Outage outage = new Outage();
        outage.begin();
        Client client = outage.wrap(
                Client.class,
                what -> {
                    throw new IOException("the real client's own failure");
                },
                Map.of());
        assertThatThrownBy(() -> client.fetch("a"))
                .isInstanceOf(IOException.class)
                .hasMessage("the real client's own failure");
    }

    @Test
    void onlyAnInterfaceIsWrapped_andOnlyKafkasConsumerAsAKafkaConsumer() {
        Outage outage = new Outage();
        assertThatThrownBy(() -> outage.wrap(String.class, "x", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("interface");
        Supplier<String> notKafka = () -> "x";
        assertThatThrownBy(() -> outage.kafkaConsumer(Supplier.class, notKafka))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not Kafka's Consumer");
    }
}
