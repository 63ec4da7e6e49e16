package dev.inbox.spring.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Claim;
import dev.inbox.Inbox;
import dev.inbox.InboxStoreException;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.micrometer.ObservationInboxObserver;
import dev.inbox.rabbitmq.KeylessMessages;
import dev.inbox.rabbitmq.MessageKeys;
import dev.inbox.spi.InboxStore;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import dev.inbox.testing.RabbitQueues;
import dev.inbox.testing.StoppedObservations;
import dev.inbox.testing.TestServers;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.context.support.GenericApplicationContext;

/** The advice in Spring AMQP's own listener container, against the real RabbitMQ broker. */
class InboxRabbitAdviceTest {

    private static Database db;
    private static CachingConnectionFactory connections;
    private static RabbitAdmin admin;
    private final String queue = "inbox-spring-" + UUID.randomUUID();
    private SimpleMessageListenerContainer container;
    private boolean requeueRejected = true;

    @BeforeAll
    static void servers() {
        db = new Database();
        connections = new CachingConnectionFactory(URI.create(TestServers.rabbitmq()));
        admin = new RabbitAdmin(connections);
    }

    @AfterAll
    static void close() {
        connections.destroy();
        db.close();
    }

    @AfterEach
    void stop() {
        if (container != null) {
            container.stop();
        }
        admin.deleteQueue(queue);
    }

    private void send(String... events) {
        admin.declareQueue(new Queue(queue, false, false, false));
        RabbitTemplate template = new RabbitTemplate(connections);
        for (String event : events) {
            MessageProperties properties = new MessageProperties();
            properties.setMessageId(event);
            template.send("", queue, new Message(event.getBytes(StandardCharsets.UTF_8), properties));
        }
    }

    private void start(MessageListener listener, Advice... advice) {
        container = new SimpleMessageListenerContainer(connections);
        start(listener, advice, container);
    }

    /** Starts {@code container}, already configured by the test, on the queue. */
    private void start(MessageListener listener, Advice[] advice, SimpleMessageListenerContainer container) {
        this.container = container;
        container.setQueueNames(queue);
        container.setMessageListener(listener);
        container.setAdviceChain(advice);
        container.setDefaultRequeueRejected(requeueRejected);
        container.start();
    }

    private long ready() {
        return admin.getQueueInfo(queue).getMessageCount();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() < deadline)
                    .as("waited 30 s for: %s", what)
                    .isTrue();
            Thread.sleep(25);
        }
    }

    private static String body(Message message) {
        return new String(message.getBody(), StandardCharsets.UTF_8);
    }

    @Test
    void duplicatesAreAcknowledgedWithoutTheListener() throws Exception {
        InboxRabbitAdvice advice = new InboxRabbitAdvice(Database.memoryInbox(), MessageKeys.messageId());
        List<String> applied = new CopyOnWriteArrayList<>();
        send("e1", "e2", "e1", "e3", "e2");
        start(m -> applied.add(body(m)), advice);
        await(
                "every message handled",
                () -> advice.counts().processed() + advice.counts().duplicates() == 5);
        await("every message acknowledged", () -> ready() == 0);
        assertThat(applied).containsExactly("e1", "e2", "e3");
        assertThat(advice.counts().duplicates()).isEqualTo(2);
    }

    /**
     * Without Boot, {@code applyTo} installs the advice in a factory: first in its chain (an advice the
     * factory had stays, after it), and the factory's containers deduplicate.
     */
    @Test
    void applyTo_putsTheAdviceFirstInAFactory_whoseContainersThenDeduplicate() throws Exception {
        InboxRabbitAdvice advice = new InboxRabbitAdvice(Database.memoryInbox(), MessageKeys.messageId());
        List<String> applied = new CopyOnWriteArrayList<>();
        Advice theirs = (org.aopalliance.intercept.MethodInterceptor) invocation -> invocation.proceed();
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        factory.setConnectionFactory(connections);
        factory.setAdviceChain(theirs);
        advice.applyTo(factory);
        assertThat(factory.getAdviceChain()).containsExactly(advice, theirs);
        send("e1", "e2", "e1");
        SimpleRabbitListenerEndpoint endpoint = new SimpleRabbitListenerEndpoint();
        endpoint.setId("apply-to-" + queue);
        endpoint.setQueueNames(queue);
        endpoint.setMessageListener(m -> applied.add(body(m)));
        container = factory.createListenerContainer(endpoint);
        container.start();
        await(
                "every message handled",
                () -> advice.counts().processed() + advice.counts().duplicates() == 3);
        await("every message acknowledged", () -> ready() == 0);
        assertThat(applied).containsExactly("e1", "e2");
    }

    /**
     * The advice cannot see its container's acknowledge mode as it runs: {@code applyTo} refuses a
     * container that acknowledges manually or not at all as the factory creates it, whether the
     * factory or the listener ({@code @RabbitListener(ackMode = ...)}) chose the mode.
     */
    @Test
    void applyTo_refusesManualAndNoAcknowledgements_asTheFactoryCreatesTheContainer_withWhatToChange() {
        InboxRabbitAdvice advice = new InboxRabbitAdvice(Database.memoryInbox(), MessageKeys.messageId());
        SimpleRabbitListenerContainerFactory manual = new SimpleRabbitListenerContainerFactory();
        manual.setConnectionFactory(connections);
        manual.setAcknowledgeMode(AcknowledgeMode.MANUAL);
        advice.applyTo(manual);
        SimpleRabbitListenerEndpoint endpoint = new SimpleRabbitListenerEndpoint();
        endpoint.setId("manual-" + queue);
        endpoint.setQueueNames(queue);
        endpoint.setMessageListener(m -> {});
        assertThatThrownBy(() -> manual.createListenerContainer(endpoint))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("manual-" + queue)
                .hasMessageContaining("AcknowledgeMode.MANUAL")
                .hasMessageContaining("Use AUTO");
        SimpleRabbitListenerContainerFactory auto = new SimpleRabbitListenerContainerFactory();
        auto.setConnectionFactory(connections);
        advice.applyTo(auto);
        endpoint.setId("none-" + queue);
        endpoint.setAckMode(AcknowledgeMode.NONE);
        assertThatThrownBy(() -> auto.createListenerContainer(endpoint))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("none-" + queue)
                .hasMessageContaining("AcknowledgeMode.NONE");
        assertThatThrownBy(() -> advice.applyTo(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A queue without a dead-letter exchange drops a message rejected without requeue, and AMQP does
     * not tell the advice which kind its queue is: by default a keyless message is held, never run,
     * and requeued when the container stops.
     */
    @Test
    void byDefault_aMessageWithoutAKey_isHeldUntilTheContainerStops_thenRequeued_neverDropped() throws Exception {
        InboxRabbitAdvice advice =
                new InboxRabbitAdvice(Database.memoryInbox(), MessageKeys.messageId(), Duration.ofMillis(50));
        List<String> applied = new CopyOnWriteArrayList<>();
        admin.declareQueue(new Queue(queue, false, false, false)); // no dead-letter exchange
        new RabbitTemplate(connections)
                .send("", queue, new Message("no id".getBytes(StandardCharsets.UTF_8), new MessageProperties()));
        SimpleMessageListenerContainer held = new SimpleMessageListenerContainer(connections);
        held.setShutdownTimeout(1_000);
        start(m -> applied.add(body(m)), new Advice[] {advice}, held);
        await("the keyless message delivered", () -> ready() == 0);
        Thread.sleep(300); // long enough for a reject to reach the broker
        container.stop();
        container = null;
        await("the keyless message back in the queue", () -> ready() == 1);
        assertThat(applied).isEmpty();
    }

    @Test
    void keylessMessagesDeadLetter_rejectsAMessageWithoutAKeyToTheDeadLetterExchange() throws Exception {
        InboxRabbitAdvice advice = new InboxRabbitAdvice(
                        Database.memoryInbox(), MessageKeys.messageId(), Duration.ofMillis(50))
                .keylessMessages(KeylessMessages.DEAD_LETTER);
        List<String> applied = new CopyOnWriteArrayList<>();
        admin.declareQueue(new Queue(queue + "-dead", false, false, false));
        admin.declareQueue(new Queue(queue, false, false, false, RabbitQueues.deadLetteringTo(queue + "-dead", false)));
        try {
            new RabbitTemplate(connections)
                    .send("", queue, new Message("no id".getBytes(StandardCharsets.UTF_8), new MessageProperties()));
            start(m -> applied.add(body(m)), advice);
            await("dead-lettered", () -> admin.getQueueInfo(queue + "-dead").getMessageCount() == 1);
            assertThat(applied).isEmpty();
            assertThatThrownBy(() -> advice.keylessMessages(null)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            admin.deleteQueue(queue + "-dead");
        }
    }

    /**
     * With the container's own observation on ({@code observationEnabled}, the registry a bean of its
     * application context, as Spring AMQP finds it), each message's claim and completion are children
     * of its {@code spring.rabbit.listener} observation, so they land in the trace the container
     * continues from the message's headers; a duplicate's listener observation is stopped too.
     */
    @Test
    void claimAndCompletion_nestUnderTheContainersListenerObservation() throws Exception {
        StoppedObservations observations = new StoppedObservations();
        SpringInbox inbox =
                SpringInbox.leaseOnly(Inbox.builder(CaffeineInboxStore.builder().build())
                        .consumer("observed")
                        .observer(ObservationInboxObserver.of(observations.registry()))
                        .build());
        InboxRabbitAdvice advice = new InboxRabbitAdvice(inbox, MessageKeys.messageId());
        List<String> applied = new CopyOnWriteArrayList<>();
        send("o1", "o1");
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean(ObservationRegistry.class, observations::registry);
            context.refresh();
            SimpleMessageListenerContainer observed = new SimpleMessageListenerContainer(connections);
            observed.setApplicationContext(context);
            observed.setObservationEnabled(true);
            start(m -> applied.add(body(m)), new Advice[] {advice}, observed);
            await(
                    "both messages acknowledged",
                    () -> ready() == 0 && advice.counts().duplicates() == 1);
            await(
                    "both listener observations stopped",
                    () -> observations.named("spring.rabbit.listener").size() == 2);
            container.stop();
        }
        assertThat(applied).containsExactly("o1");
        observations.assertEachNestedUnder("spring.rabbit.listener", "inbox.claim", 2);
        observations.assertEachNestedUnder("spring.rabbit.listener", "inbox.complete", 1);
        assertThat(observations.named("inbox.claim"))
                .extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly("acquired", "duplicate");
    }

    @Test
    void aBusyMessage_isHeldAndClaimedAgainUntilTheHolderLetsGo_andNeverDropped() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxRabbitAdvice advice = new InboxRabbitAdvice(inbox, MessageKeys.messageId(), Duration.ofMillis(50));
        List<String> applied = new CopyOnWriteArrayList<>();
        Claim holder = inbox.inbox().claims().claim(DedupKeys.amqp("b1"));
        send("b1");
        requeueRejected = false; // a failing listener's message would be dropped: a busy one must not be
        start(m -> applied.add(body(m)), advice);
        await("several BUSY answers", () -> advice.counts().busy() >= 5);
        assertThat(applied).isEmpty();
        assertThat(holder.release()).isTrue();
        await("applied once the holder let go", () -> applied.size() == 1);
        await("acknowledged", () -> ready() == 0);
        assertThat(applied).containsExactly("b1");
    }

    /**
     * A store that stays down longer than the inbox's lease, under a container with {@code
     * defaultRequeueRejected=false} (failed listeners' messages to the dead-letter exchange): the
     * message held in place is then requeued, never rejected to the dead letters, and applied once
     * the store is back.
     */
    @Test
    void aStoreDownLongerThanTheLease_underDefaultRequeueRejectedFalse_isRequeued_neverDeadLettered() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicInteger failedClaims = new AtomicInteger();
        InboxStore real = CaffeineInboxStore.builder().build();
        InboxStore failing = (InboxStore) Proxy.newProxyInstance(
                InboxStore.class.getClassLoader(), new Class<?>[] {InboxStore.class}, (proxy, method, args) -> {
                    if (down.get() && method.getName().startsWith("claim")) {
                        failedClaims.incrementAndGet();
                        throw new InboxStoreException("test: the store is down at the claim", null, true);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        SpringInbox inbox = SpringInbox.leaseOnly(Inbox.builder(failing)
                .consumer("store-down")
                .lease(Duration.ofMillis(300))
                .claimAttempts(1)
                .build());
        InboxRabbitAdvice advice = new InboxRabbitAdvice(inbox, MessageKeys.messageId(), Duration.ofMillis(50));
        List<String> applied = new CopyOnWriteArrayList<>();
        admin.declareQueue(new Queue(queue + "-dead", false, false, false));
        admin.declareQueue(new Queue(queue, false, false, false, RabbitQueues.deadLetteringTo(queue + "-dead", false)));
        try {
            MessageProperties properties = new MessageProperties();
            properties.setMessageId("s1");
            new RabbitTemplate(connections)
                    .send("", queue, new Message("s1".getBytes(StandardCharsets.UTF_8), properties));
            requeueRejected = false;
            start(m -> applied.add(body(m)), advice);
            await("claims failing for more than three leases", () -> failedClaims.get() >= 20);
            assertThat(applied).isEmpty();
            down.set(false);
            await("applied once the store is back", () -> applied.size() == 1);
            await("acknowledged", () -> ready() == 0);
            assertThat(admin.getQueueInfo(queue + "-dead").getMessageCount())
                    .as("dead-lettered")
                    .isZero();
            assertThat(applied).containsExactly("s1");
        } finally {
            admin.deleteQueue(queue + "-dead");
        }
    }

    /**
     * A quorum queue counts every requeue towards its {@code x-delivery-limit} (RabbitMQ 4.0-4.2 give
     * every quorum queue a limit of 20) and dead-letters past it: a BUSY message requeued at each
     * answer would be dead-lettered unapplied while another delivery holds its event.
     */
    @Test
    void onAQuorumQueueWithADeliveryLimit_aBusyMessageHeldLongerThanTheLimit_isAppliedOnce_neverDeadLettered()
            throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxRabbitAdvice advice = new InboxRabbitAdvice(inbox, MessageKeys.messageId(), Duration.ofMillis(50));
        List<String> applied = new CopyOnWriteArrayList<>();
        Claim holder = inbox.inbox().claims().claim(DedupKeys.amqp("q1"));
        admin.declareQueue(new Queue(queue + "-dead", false, false, false));
        admin.declareQueue(
                new Queue(queue, true, false, false, RabbitQueues.quorumDeadLetteringTo(queue + "-dead", 3)));
        try {
            MessageProperties properties = new MessageProperties();
            properties.setMessageId("q1");
            new RabbitTemplate(connections)
                    .send("", queue, new Message("q1".getBytes(StandardCharsets.UTF_8), properties));
            start(m -> applied.add(body(m)), advice);
            await(
                    "eight BUSY answers, past the delivery limit of 3",
                    () -> advice.counts().busy() >= 8);
            assertThat(applied).isEmpty();
            assertThat(holder.release()).isTrue();
            await("applied once the holder let go", () -> applied.size() == 1);
            assertThat(admin.getQueueInfo(queue + "-dead").getMessageCount())
                    .as("dead-lettered")
                    .isZero();
        } finally {
            admin.deleteQueue(queue + "-dead");
        }
    }

    @Test
    void aFailingListener_releasesItsClaim_soTheRedeliveryAppliesTheEventOnce() throws Exception {
        InboxRabbitAdvice advice =
                new InboxRabbitAdvice(Database.memoryInbox(), MessageKeys.messageId(), Duration.ofMillis(50));
        List<String> applied = new CopyOnWriteArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        send("f1");
        start(
                m -> {
                    if (attempts.incrementAndGet() < 3) {
                        throw new IllegalStateException("the listener failed");
                    }
                    applied.add(body(m));
                },
                advice);
        await("applied", () -> applied.size() == 1);
        await("acknowledged", () -> ready() == 0);
        assertThat(applied).containsExactly("f1");
        assertThat(advice.counts().busy())
                .as("each redelivery found the claim released")
                .isZero();
    }

    /** The claim joins the container's database transaction, and commits or rolls back with the listener's writes. */
    @Test
    void transactionalMode_theClaimAndTheListenersWritesCommitOrRollBackTogether() throws Exception {
        String run = Database.run();
        InboxRabbitAdvice advice =
                new InboxRabbitAdvice(db.joining(run), MessageKeys.messageId(), Duration.ofMillis(50));
        AtomicInteger failures = new AtomicInteger();
        List<String> seen = new CopyOnWriteArrayList<>();
        send("t1", "t2", "t1", "t3", "t2");
        container = new SimpleMessageListenerContainer(connections);
        container.setQueueNames(queue);
        container.setTransactionManager(db.transactions);
        container.setAdviceChain(advice);
        container.setMessageListener(m -> {
            String event = body(m);
            if (event.equals("t1")) {
                seen.add(db.completedRecords(run) + " in the transaction, " + db.committedRecords(run) + " committed");
            }
            db.apply(run, event);
            if (event.equals("t2") && failures.incrementAndGet() < 3) {
                throw new IllegalStateException("the listener failed after its write");
            }
        });
        container.start();
        await(
                "every message handled",
                () -> advice.counts().processed() + advice.counts().duplicates() == 5);
        await("every message acknowledged", () -> ready() == 0);
        assertThat(db.applications(run))
                .containsOnlyKeys("t1", "t2", "t3")
                .allSatisfy((event, times) -> assertThat(times).as(event).isEqualTo(1L));
        assertThat(db.records(run)).isEqualTo(3);
        assertThat(seen).containsExactly("1 in the transaction, 0 committed");
    }
}
