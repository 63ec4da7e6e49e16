package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import dev.inbox.tck.FaultProxy;
import dev.inbox.testing.TestServers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The consumer on a connection that amqp-client recovers after the broker connection was cut (a
 * {@link FaultProxy} between client and the real RabbitMQ): the recovered channel registers the
 * same consumer object again, and a BUSY delivery after that is requeued as before.
 */
@Timeout(90)
class InboxConsumerRecoveryTest {

    @Test
    void afterAutomaticRecovery_aBusyDeliveryIsHeldAndTriedAgain_andEveryEventAppliedOnce() throws Exception {
        URI broker = URI.create(TestServers.rabbitmq());
        String queue = "inbox-recovery-" + UUID.randomUUID();
        String consumerName = "rabbit-recovery-" + UUID.randomUUID();
        Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
        try (FaultProxy proxy = FaultProxy.start(broker.getHost(), broker.getPort() < 0 ? 5672 : broker.getPort());
                CaffeineInboxStore store = CaffeineInboxStore.builder().build()) {
            ConnectionFactory direct = new ConnectionFactory();
            direct.setUri(broker);
            ConnectionFactory proxied = new ConnectionFactory();
            proxied.setUri(broker);
            proxied.setHost(proxy.host());
            proxied.setPort(proxy.port());
            proxied.setNetworkRecoveryInterval(200);
            Inbox inbox = Inbox.builder(store)
                    .consumer(consumerName)
                    .lease(Duration.ofSeconds(30))
                    .build();
            try (Connection admin = direct.newConnection("recovery-admin");
                    Channel publisher = admin.createChannel();
                    Connection connection = proxied.newConnection("recovery-consumer")) {
                publisher.queueDeclare(queue, false, false, false, null);
                Channel channel = connection.createChannel();
                channel.basicQos(10);
                InboxConsumer consumer = InboxConsumer.builder(
                                channel,
                                inbox,
                                delivery -> applied.computeIfAbsent(
                                                new String(delivery.getBody(), StandardCharsets.UTF_8),
                                                b -> new AtomicInteger())
                                        .incrementAndGet())
                        .busyRequeueDelay(Duration.ofMillis(100))
                        .build();
                channel.basicConsume(queue, false, consumer);
                publish(publisher, queue, "before");
                await(() -> applied.containsKey("before"));

                CountDownLatch recovered = new CountDownLatch(1);
                ((Recoverable) connection).addRecoveryListener(new RecoveryListener() {
                    @Override
                    public void handleRecovery(Recoverable recoverable) {
                        recovered.countDown();
                    }

                    @Override
                    public void handleRecoveryStarted(Recoverable recoverable) {}
                });
                proxy.cutConnections();
                assertThat(recovered.await(30, TimeUnit.SECONDS))
                        .as("connection recovered")
                        .isTrue();

                InboxKey held = InboxKey.of(consumerName, "amqp:held");
                OwnerToken other = OwnerToken.random();
                assertThat(store.claim(ClaimRequest.of(held, other, Duration.ofMinutes(1)))
                                .isAcquired())
                        .isTrue();
                publish(publisher, queue, "held");
                for (int i = 0; i < 15; i++) {
                    publish(publisher, queue, "after-" + i);
                }
                await(() -> applied.keySet().stream()
                                .filter(k -> k.startsWith("after-"))
                                .count()
                        == 15);
                Thread.sleep(500); // the held event is tried again meanwhile, again and again
                assertThat(applied).doesNotContainKey("held");
                assertThat(channel.isOpen())
                        .as("the consumer's channel is open")
                        .isTrue();
                store.release(held, other); // the other delivery failed
                await(() -> applied.containsKey("held"));
                assertThat(applied.values())
                        .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
                assertThat(applied).hasSize(17);
                assertThat(consumer.counts().processed()).isEqualTo(17);
            } finally {
                try (Connection admin = direct.newConnection("recovery-cleanup");
                        Channel cleanup = admin.createChannel()) {
                    cleanup.queueDelete(queue);
                }
            }
        }
    }

    private static void publish(Channel publisher, String queue, String id) throws Exception {
        publisher.basicPublish(
                "",
                queue,
                new AMQP.BasicProperties.Builder().messageId(id).build(),
                id.getBytes(StandardCharsets.UTF_8));
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("still waiting after 30 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
