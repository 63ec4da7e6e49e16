package dev.inbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.inbox.FailurePolicy;
import dev.inbox.Inbox;
import dev.inbox.InboxKey;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spi.ClaimRequest;
import dev.inbox.spi.OwnerToken;
import dev.inbox.testing.RabbitQueues;
import dev.inbox.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The consumer against the real RabbitMQ broker the tests find ({@link TestServers#rabbitmq()}). */
@Timeout(60)
class InboxConsumerTest {

    private Connection connection;
    private Channel channel;
    private String queue;
    private CaffeineInboxStore store;
    private Inbox inbox;
    private final String consumer = "rabbit-" + UUID.randomUUID();
    private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
    /** What the consumer reported to the inbox's metrics, per delivery. */
    private final java.util.List<dev.inbox.DeliveryOutcome> reported =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void connect() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        connection = factory.newConnection("inbox-rabbitmq-test");
        channel = connection.createChannel();
        queue = "inbox-test-" + UUID.randomUUID();
        // Not auto-deleted: the tests close the consuming channel to get its unacknowledged messages back.
        channel.queueDeclare(queue + "-dead", false, false, false, null);
        channel.queueDeclare(
                queue,
                false,
                false,
                false,
                Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", queue + "-dead"));
        store = CaffeineInboxStore.builder().build();
        inbox = Inbox.builder(store)
                .consumer(consumer)
                .lease(Duration.ofSeconds(30))
                .metrics(new dev.inbox.InboxMetrics() {
                    @Override
                    public void delivered(String c, dev.inbox.DeliveryOutcome outcome) {
                        reported.add(outcome);
                    }
                })
                .build();
    }

    @AfterEach
    void disconnect() throws Exception {
        try (Channel cleanup = connection.createChannel()) {
            cleanup.queueDelete(queue);
            cleanup.queueDelete(queue + "-dead");
        }
        connection.close(5_000);
        store.close();
    }

    private void publish(String messageId, String body) throws Exception {
        AMQP.BasicProperties.Builder props = new AMQP.BasicProperties.Builder();
        if (messageId != null) {
            props.messageId(messageId);
        }
        channel.basicPublish("", queue, props.build(), body.getBytes(StandardCharsets.UTF_8));
    }

    private InboxConsumer.Builder consumer(MessageHandler handler) {
        return InboxConsumer.builder(channel, inbox, handler).busyRequeueDelay(Duration.ofMillis(100));
    }

    /** Counts each applied message by its body. */
    private MessageHandler counting() {
        return delivery -> applied.computeIfAbsent(
                        new String(delivery.getBody(), StandardCharsets.UTF_8), b -> new AtomicInteger())
                .incrementAndGet();
    }

    /** Ready messages of {@code name}; after the consuming channel closed, unacknowledged ones are back too. */
    private long pending(String name) throws Exception {
        try (Channel probe = connection.createChannel()) {
            AMQP.Queue.DeclareOk ok = probe.queueDeclarePassive(name);
            return ok.getMessageCount();
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private void awaitDeadLettered() throws InterruptedException {
        await("one message dead-lettered", () -> {
            try {
                return pending(queue + "-dead") == 1;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void redeliveriesAndResendsOfOneMessageId_areAppliedOnce_andAllAcknowledged() throws Exception {
        channel.basicQos(10);
        InboxConsumer inboxConsumer = consumer(counting()).build();
        channel.basicConsume(queue, false, inboxConsumer);
        for (int i = 0; i < 3; i++) {
            publish("order-42", "order-42 shipped");
        }
        publish("order-43", "order-43 shipped");
        await("both events applied", () -> applied.size() == 2);
        Thread.sleep(300);
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(applied.get("order-42 shipped").get())
                .as("three deliveries of order-42")
                .isEqualTo(1);
        assertThat(applied.get("order-43 shipped").get()).isEqualTo(1);
        assertThat(pending(queue))
                .as("messages left: every delivery was acknowledged")
                .isZero();
        assertThat(inboxConsumer.counts()).isEqualTo(new dev.inbox.Deliveries(2, 2, 0, 0, 0, 0));
        assertThat(inboxConsumer.counts().acknowledged()).isEqualTo(4);
        assertThat(reported)
                .as("outcomes reported to InboxMetrics.delivered")
                .containsExactlyInAnyOrder(
                        dev.inbox.DeliveryOutcome.PROCESSED,
                        dev.inbox.DeliveryOutcome.PROCESSED,
                        dev.inbox.DeliveryOutcome.DUPLICATE,
                        dev.inbox.DeliveryOutcome.DUPLICATE);
    }

    @Test
    void aDeliveryWhoseAcknowledgementCouldNotBeSent_isNotCountedAsAcknowledged() throws Exception {
        // A channel of its own, on a connection that says when a delivery's handling threw.
        java.util.concurrent.CountDownLatch threw = new java.util.concurrent.CountDownLatch(1);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(TestServers.rabbitmq());
        factory.setExceptionHandler(new com.rabbitmq.client.impl.DefaultExceptionHandler() {
            @Override
            public void handleConsumerException(
                    Channel c, Throwable exception, com.rabbitmq.client.Consumer consumer, String tag, String method) {
                threw.countDown();
            }
        });
        try (com.rabbitmq.client.Connection own = factory.newConnection("inbox-rabbitmq-test-ack-lost")) {
            Channel closing = own.createChannel();
            // The channel closes under the work (a connection lost at that moment): its ack cannot be sent.
            InboxConsumer inboxConsumer = InboxConsumer.builder(closing, inbox, delivery -> closing.abort())
                    .build();
            closing.basicConsume(queue, false, inboxConsumer);
            publish("order-1", "order-1 shipped");

            assertThat(threw.await(20, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the acknowledgement failed")
                    .isTrue();
            assertThat(inboxConsumer.counts().acknowledged())
                    .as("nothing was acknowledged: the message comes back")
                    .isZero();
            assertThat(reported).doesNotContain(dev.inbox.DeliveryOutcome.PROCESSED);
            await("the message back on its queue", () -> {
                try {
                    return pending(queue) == 1;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @Test
    void failedWork_isReleasedAndRequeued_thenAppliedOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        channel.basicConsume(
                queue,
                false,
                consumer(delivery -> {
                            if (attempts.incrementAndGet() == 1) {
                                throw new IllegalStateException("the first attempt fails");
                            }
                            counting().handle(delivery);
                        })
                        .build());
        publish("payment-7", "payment-7");
        await("the retry applied it", () -> applied.containsKey("payment-7"));
        Thread.sleep(200);
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(applied.get("payment-7").get()).isEqualTo(1);
        assertThat(pending(queue)).isZero();
    }

    @Test
    void failedWork_goesToTheDeadLetterQueue_whenNotRequeued() throws Exception {
        channel.basicConsume(
                queue,
                false,
                consumer(delivery -> {
                            throw new IllegalStateException("poison");
                        })
                        .requeueFailedWork(false)
                        .build());
        publish("poison-1", "poison");
        awaitDeadLettered();
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(pending(queue)).isZero();
        assertThat(reported).containsExactly(dev.inbox.DeliveryOutcome.DEAD_LETTERED);
    }

    /**
     * A failure policy: failed work is requeued until the policy gives up, then dead-lettered — a
     * failure that passes is applied, never dead-lettered at its first attempt.
     */
    @Test
    void aFailurePolicy_retriesFailedWorkUntilItGivesUp_thenDeadLetters() throws Exception {
        AtomicInteger poisonAttempts = new AtomicInteger();
        AtomicInteger transientAttempts = new AtomicInteger();
        InboxConsumer inboxConsumer = consumer(delivery -> {
                    String body = new String(delivery.getBody(), StandardCharsets.UTF_8);
                    if (body.equals("poison")) {
                        poisonAttempts.incrementAndGet();
                        throw new IllegalStateException("poison");
                    }
                    if (body.equals("transient") && transientAttempts.incrementAndGet() <= 2) {
                        throw new IllegalStateException("transient");
                    }
                    counting().handle(delivery);
                })
                .failurePolicy(FailurePolicy.attempts(3, Duration.ofMillis(50)))
                .build();
        channel.basicConsume(queue, false, inboxConsumer);
        publish("transient-1", "transient");
        publish("poison-1", "poison");
        awaitDeadLettered();
        await("the transient failure applied", () -> applied.containsKey("transient"));
        assertThat(poisonAttempts).as("attempts of the poison message").hasValue(3);
        assertThat(transientAttempts).hasValue(3);
        assertThat(applied.get("transient").get()).isEqualTo(1);
        assertThat(inboxConsumer.counts().deadLettered()).isEqualTo(1);
        assertThat(inboxConsumer.counts().failed()).isEqualTo(4);
    }

    @Test
    void aFailurePolicyAndRequeueFailedWork_areOneChoice_refusedTogether() {
        assertThatThrownBy(() -> consumer(counting())
                        .requeueFailedWork(false)
                        .failurePolicy(FailurePolicy.attempts(3, Duration.ofSeconds(1)))
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failurePolicy");
    }

    @Test
    void aBusyMessage_isHeldAndTriedAgainAfterTheDelay_neverAcknowledged_untilTheHolderLetsGo() throws Exception {
        OwnerToken holder = OwnerToken.random();
        InboxKey key = InboxKey.of(consumer, DedupKeys.amqp("held-1"));
        assertThat(store.claim(ClaimRequest.of(key, holder, Duration.ofMinutes(5)))
                        .isAcquired())
                .isTrue();
        channel.basicConsume(queue, false, consumer(counting()).build());
        publish("held-1", "held-1");
        Thread.sleep(500); // several BUSY answers, each tried again after 100 ms
        assertThat(applied).as("work while another delivery holds the event").isEmpty();
        assertThat(store.release(key, holder)).isTrue(); // the other attempt failed and let go
        await("applied once the holder let go", () -> applied.containsKey("held-1"));
        Thread.sleep(200);
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(applied.get("held-1").get()).isEqualTo(1);
        assertThat(pending(queue)).isZero();
    }

    /**
     * A quorum queue counts every requeue towards its {@code x-delivery-limit} (RabbitMQ 4.0-4.2 give
     * every quorum queue a limit of 20) and dead-letters the message past it: a BUSY answer that went
     * back to the queue would get an event held elsewhere long enough dead-lettered, unapplied.
     */
    @Test
    void onAQuorumQueueWithADeliveryLimit_aBusyMessageHeldLongerThanTheLimit_isAppliedOnce_neverDeadLettered()
            throws Exception {
        String quorum = "inbox-test-quorum-" + UUID.randomUUID();
        channel.queueDeclare(quorum, true, false, false, RabbitQueues.quorumDeadLetteringTo(queue + "-dead", 3));
        try {
            OwnerToken holder = OwnerToken.random();
            InboxKey key = InboxKey.of(consumer, DedupKeys.amqp("held-q"));
            assertThat(store.claim(ClaimRequest.of(key, holder, Duration.ofMinutes(5)))
                            .isAcquired())
                    .isTrue();
            InboxConsumer inboxConsumer = consumer(counting()).build();
            channel.basicConsume(quorum, false, inboxConsumer);
            channel.basicPublish(
                    "",
                    quorum,
                    new AMQP.BasicProperties.Builder().messageId("held-q").build(),
                    "held-q".getBytes(StandardCharsets.UTF_8));
            await(
                    "eight BUSY answers, past the delivery limit of 3",
                    () -> inboxConsumer.counts().busy() >= 8);
            assertThat(store.release(key, holder)).isTrue(); // the other attempt failed and let go
            await("applied once the holder let go", () -> applied.containsKey("held-q"));
            assertThat(applied.get("held-q").get()).isEqualTo(1);
            assertThat(pending(queue + "-dead")).as("dead-lettered").isZero();
        } finally {
            try (Channel cleanup = connection.createChannel()) {
                cleanup.queueDelete(quorum);
            }
        }
    }

    @Test
    void byDefault_aMessageWithoutAKey_onAQueueWithoutADeadLetterExchange_isHeld_neverDropped_andGoesBackOnStop()
            throws Exception {
        String plain = queue + "-plain"; // no dead-letter exchange: a message rejected here is gone
        channel.queueDeclare(plain, false, false, false, null);
        try {
            channel.basicQos(10);
            InboxConsumer inboxConsumer = consumer(counting()).build();
            channel.basicConsume(plain, false, inboxConsumer);
            channel.basicPublish("", plain, null, "{\"order\":42}".getBytes(StandardCharsets.UTF_8));
            channel.basicPublish(
                    "",
                    plain,
                    new AMQP.BasicProperties.Builder().messageId("m-1").build(),
                    "keyed".getBytes(StandardCharsets.UTF_8));
            await("the keyed message after the keyless one applied", () -> applied.containsKey("keyed"));
            assertThat(inboxConsumer.stop(Duration.ofSeconds(5))).isTrue();
            await("the keyless message back in the queue", () -> {
                try {
                    return pending(plain) == 1;
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(applied).containsOnlyKeys("keyed");
            assertThat(reported).containsExactly(dev.inbox.DeliveryOutcome.PROCESSED);
        } finally {
            try (Channel cleanup = connection.createChannel()) {
                cleanup.queueDelete(plain);
            }
        }
    }

    @Test
    void keylessMessagesDeadLetter_rejectsAMessageWithoutAKey_toTheDeadLetterExchange_neverProcessed()
            throws Exception {
        channel.basicConsume(
                queue,
                false,
                consumer(counting())
                        .keylessMessages(KeylessMessages.DEAD_LETTER)
                        .build());
        publish(null, "{\"order\":42}"); // JSON without a message-id: the standard keys never hash the body
        awaitDeadLettered();
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(applied).isEmpty();
        assertThat(reported).containsExactly(dev.inbox.DeliveryOutcome.DEAD_LETTERED);
    }

    /**
     * A copy whose AMQP timestamp is older than the window the keys admit is EXPIRED: taken as a
     * message without a usable key (here dead-lettered), never applied; a fresh copy is applied.
     */
    @Test
    void aCopyOlderThanTheWindow_isExpired_andDeadLettered_neverApplied() throws Exception {
        channel.basicConsume(
                queue,
                false,
                consumer(counting())
                        .keys(MessageKeys.messageId().refusingCopiesOlderThan(Duration.ofHours(1)))
                        .keylessMessages(KeylessMessages.DEAD_LETTER)
                        .build());
        publishSentAgo("old", Duration.ofHours(2));
        publishSentAgo("fresh", Duration.ZERO);
        awaitDeadLettered();
        await("the fresh copy applied", () -> applied.containsKey("fresh"));
        assertThat(applied.keySet()).containsExactly("fresh");
    }

    /** Publishes {@code id} as its message id and body, with an AMQP timestamp {@code ago} in the past. */
    private void publishSentAgo(String id, Duration ago) throws Exception {
        java.util.Date sent = new java.util.Date(System.currentTimeMillis() - ago.toMillis());
        channel.basicPublish(
                "",
                queue,
                new AMQP.BasicProperties.Builder().messageId(id).timestamp(sent).build(),
                id.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aKeyThatIsNotAValidKey_isDeadLettered_andTheChannelStaysOpen() throws Exception {
        MessageKeys keys = MessageKeys.header("ce_id");
        channel.basicConsume(
                queue,
                false,
                consumer(counting())
                        .keys(keys)
                        .keylessMessages(KeylessMessages.DEAD_LETTER)
                        .build());
        channel.basicPublish(
                "",
                queue,
                new AMQP.BasicProperties.Builder()
                        .headers(Map.of("ce_id", "x".repeat(600))) // over 512 bytes
                        .build(),
                "too long".getBytes(StandardCharsets.UTF_8));
        awaitDeadLettered();
        assertThat(channel.isOpen())
                .as("the consuming channel after a poison key")
                .isTrue();
        assertThat(applied).isEmpty();
    }

    @Test
    void jsonWithoutMessageId_isKeyedByItsContent_whenTheContentHashIsChosen_soReorderedKeysAreOneEvent()
            throws Exception {
        channel.basicConsume(
                queue,
                false,
                consumer(counting()).keys(MessageKeys.jsonContentHash()).build());
        publish(null, "{\"order\":42,\"status\":\"shipped\"}");
        publish(null, "{ \"status\": \"shipped\", \"order\": 42 }");
        publish(null, "{\"order\":43,\"status\":\"shipped\"}");
        await("two events applied", () -> applied.size() == 2);
        Thread.sleep(300);
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(applied.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(2);
        assertThat(pending(queue)).isZero();
    }

    @Test
    void keysFromAHeader_andTheFirstSourceThatHasOne() throws Exception {
        MessageKeys keys = MessageKeys.firstOf(MessageKeys.header("ce_id"), MessageKeys.messageId());
        channel.basicConsume(queue, false, consumer(counting()).keys(keys).build());
        for (String body : List.of("a", "b")) { // two bodies, one CloudEvents id: one event
            channel.basicPublish(
                    "",
                    queue,
                    new AMQP.BasicProperties.Builder()
                            .headers(Map.of("ce_id", "evt-1"))
                            .build(),
                    body.getBytes(StandardCharsets.UTF_8));
        }
        await("one event applied", () -> applied.size() == 1);
        Thread.sleep(300);
        channel.close(); // what it left unacknowledged returns to the queue
        assertThat(applied.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(1);
    }

    @Test
    void badArguments_areRejectedBeforeAnyIo() {
        assertThatThrownBy(() -> InboxConsumer.builder(null, inbox, d -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxConsumer.builder(channel, inbox, d -> {}).busyRequeueDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxConsumer.builder(channel, inbox, d -> {}).keys(null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InboxConsumer.builder(channel, inbox, d -> {}).keylessMessages(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keylessMessages");
        assertThatThrownBy(() -> MessageKeys.header("")).isInstanceOf(IllegalArgumentException.class);
    }
}
