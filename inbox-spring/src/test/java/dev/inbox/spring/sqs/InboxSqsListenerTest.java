package dev.inbox.spring.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spring.SpringInbox;
import dev.inbox.sqs.SqsKeys;
import dev.inbox.testing.SqsQueues;
import dev.inbox.testing.SqsServer;
import io.awspring.cloud.sqs.annotation.SqsListener;
import io.awspring.cloud.sqs.config.SqsBootstrapConfiguration;
import io.awspring.cloud.sqs.config.SqsMessageListenerContainerFactory;
import io.awspring.cloud.sqs.listener.MessageListenerContainerRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@code @SqsListener} methods deduplicated by {@link InboxSqsListeners}, in a Spring Cloud AWS
 * application context against the real SQS server ({@link SqsServer}).
 */
@Timeout(90)
@Tag("extended") // CI and -Pextended: what it checks beyond InboxSqsListenersKitTest is the rolling deploy
class InboxSqsListenerTest {

    static final Map<String, AtomicInteger> APPLIED = new ConcurrentHashMap<>();
    static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();
    static final java.util.concurrent.CountDownLatch SLOW_STARTED = new java.util.concurrent.CountDownLatch(1);
    static final CaffeineInboxStore STORE = CaffeineInboxStore.builder().build();
    /** The inbox consumer of the test's application: the same in every context a test starts. */
    static volatile String consumer;
    /** The inbox's maxInHand in the test's application (a test that needs a short one sets it). */
    static volatile Duration maxInHand = Duration.ofHours(1);
    /** Released by the test that hangs the listener of "hangs" on its first attempt. */
    static final java.util.concurrent.CountDownLatch HUNG = new java.util.concurrent.CountDownLatch(1);

    private final SqsClient sqs = SqsQueues.client();
    private String queue;
    private AnnotationConfigApplicationContext context;

    @BeforeEach
    void queue() {
        String name = "inbox-spring-sqs-" + UUID.randomUUID();
        queue = sqs.createQueue(r -> r.queueName(name).attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2")))
                .queueUrl();
        System.setProperty("inbox.test.sqs.queue", name);
        consumer = "spring-sqs-" + UUID.randomUUID();
        maxInHand = Duration.ofHours(1);
        APPLIED.clear();
        ATTEMPTS.clear();
    }

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
        sqs.deleteQueue(r -> r.queueUrl(queue));
        sqs.close();
        System.clearProperty("inbox.test.sqs.queue");
    }

    private void send(String body, String eventId) {
        SqsQueues.send(sqs, queue, body, "event-id", eventId);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("still not after 60 s: " + what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static int applied(String body) {
        AtomicInteger n = APPLIED.get(body);
        return n == null ? 0 : n.get();
    }

    private static String queueName() {
        return System.getProperty("inbox.test.sqs.queue");
    }

    private int onTheQueue() {
        return SqsQueues.messagesLeft(sqs, queue);
    }

    @Test
    void duplicatesAreDeletedUnapplied_failedWorkComesBack_keylessIsNeverApplied() throws Exception {
        context = new AnnotationConfigApplicationContext(Application.class, Orders.class);
        InboxSqsListeners listeners = context.getBean(InboxSqsListeners.class);
        send("a", "a");
        send("b", "b");
        send("a", "a"); // a re-send
        send("fails-once", "f");
        send("keyless", null);

        await(
                "a, b and fails-once applied",
                () -> applied("a") == 1 && applied("b") == 1 && applied("fails-once") == 1);
        await("only the keyless message left on the queue", () -> onTheQueue() == 1);
        Thread.sleep(2_500); // past a visibility timeout: nothing comes back to be applied again
        assertThat(APPLIED).containsOnlyKeys("a", "b", "fails-once");
        assertThat(APPLIED.values()).allMatch(n -> n.get() == 1);
        assertThat(ATTEMPTS.get("fails-once")).hasValueGreaterThanOrEqualTo(2);
        assertThat(listeners.counts("orders").duplicates()).isGreaterThanOrEqualTo(1);
        assertThat(listeners.counts("orders").processed()).isEqualTo(3);
    }

    @Tag("extended") // CI and -Pextended; A8 of InboxSqsListenersKitTest
    @Test
    void aBusyMessage_waitsForTheHolder_andIsAppliedOnceItLetsGo() throws Exception {
        context = new AnnotationConfigApplicationContext(Application.class, Orders.class);
        InboxSqsListeners listeners = context.getBean(InboxSqsListeners.class);
        Inbox scoped = context.getBean(SpringInbox.class).scoped(queueName()).inbox();
        Claim holder =
                scoped.claims().claimAll(List.of(DedupKeys.eventId("held"))).get(0);
        assertThat(holder.isAcquired()).isTrue();
        send("held", "held");

        await("the held message answered busy", () -> listeners.counts("orders").busy() >= 1);
        assertThat(applied("held")).as("applied while another delivery held it").isZero();
        holder.release();
        await("the held message applied", () -> applied("held") == 1);
        await("and deleted", () -> onTheQueue() == 0);
    }

    @Tag("extended") // CI and -Pextended; A11 of InboxSqsListenersKitTest
    @Test
    void workLongerThanTheVisibilityTimeoutAndTheLease_keepsTheMessageInvisible_andIsAppliedOnce() throws Exception {
        context = new AnnotationConfigApplicationContext(Application.class, Orders.class);
        InboxSqsListeners listeners = context.getBean(InboxSqsListeners.class);
        send("slow", "slow"); // its work takes 5 s; the queue's visibility timeout and the lease are 2 s
        await("the slow message's work started", () -> SLOW_STARTED.getCount() == 0);
        Thread.sleep(3_000);
        assertThat(sqs.receiveMessage(r -> r.queueUrl(queue).waitTimeSeconds(1)).messages())
                .as("what another consumer receives 3 s into the work (a visibility timeout that ran out)")
                .isEmpty();
        await("the slow message applied", () -> applied("slow") == 1);
        await("and deleted", () -> onTheQueue() == 0);
        Thread.sleep(2_500);
        assertThat(listeners.counts("orders").busy())
                .as("deliveries of the slow message while its work ran (its visibility ran out)")
                .isZero();
        assertThat(ATTEMPTS.get("slow")).hasValue(1);
        assertThat(applied("slow")).isEqualTo(1);
    }

    /**
     * The reproduction of the adapter-rules issue: listeners without an {@code id} get a generated
     * container id, a counter in declaration order. Version 1 has one listener (orders, {@code #0});
     * version 2 declares an invoices listener before it, so invoices becomes {@code #0} and orders
     * {@code #1}. Scoped by container id, the re-sent order was applied again and the invoice,
     * whose producer id matches the order's, was answered as a duplicate of it and never applied.
     */
    @Test
    void aRollingDeployThatAddsAListenerWithoutAnId_neitherDoublesNorLosesAnEvent() throws Exception {
        String invoicesName = "inbox-spring-sqs-invoices-" + UUID.randomUUID();
        String invoices = sqs.createQueue(r -> r.queueName(invoicesName)).queueUrl();
        System.setProperty("inbox.test.sqs.invoices", invoicesName);
        try {
            context = new AnnotationConfigApplicationContext(Application.class, UnnamedOrders.class); // version 1
            send("order-7", "evt-7");
            await("version 1 applied the order", () -> applied("order-7") == 1 && onTheQueue() == 0);
            context.close();

            context = new AnnotationConfigApplicationContext(
                    Application.class, UnnamedInvoices.class, UnnamedOrders.class); // version 2
            send("order-7", "evt-7"); // the producer re-sends the order
            SqsQueues.send(sqs, invoices, "invoice-7", "event-id", "evt-7"); // another queue's event, same id
            await("both queues emptied", () -> onTheQueue() == 0 && SqsQueues.messagesLeft(sqs, invoices) == 0);
            assertThat(applied("order-7")).as("the re-sent order").isEqualTo(1);
            assertThat(applied("invoice-7")).as("the invoice").isEqualTo(1);
        } finally {
            context.close(); // before its queue is gone: a container polling a deleted queue stops slowly
            System.clearProperty("inbox.test.sqs.invoices");
            sqs.deleteQueue(r -> r.queueUrl(invoices));
        }
    }

    /**
     * A listener that never returns keeps its message invisible (and its claim renewed) only for the
     * inbox's maxInHand: then the queue hands the message out again and, once the lease ended, another
     * delivery applies it.
     */
    // 15 s of waiting out maxInHand: extended; SqsInboxLoopTest and InboxRenewalTest keep the bound in the default
    // build
    @Test
    @Tag("extended")
    void aListenerThatHangsPastMaxInHand_letsGoOfItsMessage_andAnotherDeliveryAppliesIt() throws Exception {
        maxInHand = Duration.ofSeconds(3);
        context = new AnnotationConfigApplicationContext(Application.class, Orders.class);
        try {
            send("hangs", "hangs");
            await("applied by another delivery", () -> applied("hangs") == 1);
            await("and deleted", () -> onTheQueue() == 0);
            Thread.sleep(2_500); // past a visibility timeout: nothing comes back to be applied again
            assertThat(applied("hangs")).isEqualTo(1);
        } finally {
            HUNG.countDown();
        }
    }

    @Test
    void aListenerThatAcknowledgesAlways_isRefusedAtStartup() {
        assertThatThrownBy(() -> context = new AnnotationConfigApplicationContext(Application.class, Always.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("acknowledges ALWAYS")
                .hasMessageContaining("ON_SUCCESS");
    }

    @Configuration
    @Import(SqsBootstrapConfiguration.class)
    static class Application {

        @Bean(destroyMethod = "close")
        SqsAsyncClient sqsAsyncClient() {
            return SqsQueues.asyncClient();
        }

        @Bean
        SqsMessageListenerContainerFactory<Object> defaultSqsListenerContainerFactory(SqsAsyncClient client) {
            return SqsMessageListenerContainerFactory.builder()
                    .sqsAsyncClient(client)
                    .configure(options -> options.pollTimeout(Duration.ofSeconds(1))
                            .acknowledgementInterval(Duration.ofMillis(100))
                            .acknowledgementThreshold(1))
                    .build();
        }

        @Bean
        SpringInbox springInbox() {
            return SpringInbox.leaseOnly(Inbox.builder(STORE)
                    .consumer(consumer)
                    .lease(Duration.ofSeconds(2))
                    .maxInHand(maxInHand)
                    .build());
        }

        @Bean
        InboxSqsListeners inboxSqsListeners(SpringInbox inbox, MessageListenerContainerRegistry registry) {
            return new InboxSqsListeners(inbox, SqsKeys.attribute("event-id"), Duration.ofSeconds(1), registry);
        }
    }

    static class Orders {
        @SqsListener(value = "${inbox.test.sqs.queue}", id = "orders")
        void on(String body) {
            if (body.equals("fails-once")
                    && ATTEMPTS.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("planned failure of " + body);
            }
            if (body.equals("hangs")
                    && ATTEMPTS.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet() == 1) {
                try {
                    HUNG.await(60, java.util.concurrent.TimeUnit.SECONDS); // hangs until the test ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            if (body.equals("slow")) {
                SLOW_STARTED.countDown();
                try {
                    Thread.sleep(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            ATTEMPTS.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
            APPLIED.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class UnnamedOrders {
        @SqsListener("${inbox.test.sqs.queue}")
        void on(String body) {
            APPLIED.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class UnnamedInvoices {
        @SqsListener("${inbox.test.sqs.invoices}")
        void on(String body) {
            APPLIED.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
        }
    }

    static class Always {
        @SqsListener(value = "${inbox.test.sqs.queue}", id = "always", acknowledgementMode = "ALWAYS")
        void on(String body) {}
    }
}
