package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.FailurePolicy;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.testing.SqsQueues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The loop's own paths through the real SQS server ({@link dev.inbox.testing.SqsServer}): FIFO
 * order, SNS envelopes, work longer than the visibility timeout, the redrive policy, the queue's
 * attributes and the arguments. The outcome table is the adapter kit's ({@link SqsInboxLoopKitTest}).
 */
@Timeout(90)
class SqsInboxLoopTest {

    private final SqsClient sqs = SqsQueues.client();
    private final List<String> queues = new ArrayList<>();
    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private Inbox inbox;

    @BeforeEach
    void inbox() {
        inbox = Inbox.builder(store)
                .consumer("sqs-" + UUID.randomUUID())
                .lease(Duration.ofSeconds(2))
                .build();
    }

    @AfterEach
    void cleanUp() {
        for (String queue : queues) {
            sqs.deleteQueue(r -> r.queueUrl(queue));
        }
        sqs.close();
        store.close();
    }

    private String queue(String prefix, Map<QueueAttributeName, String> attributes) {
        String url = SqsQueues.create(sqs, prefix, attributes);
        queues.add(url);
        return url;
    }

    private void send(String queue, String body, Map<String, String> attributes, String group) {
        Map<String, MessageAttributeValue> values = new java.util.HashMap<>();
        attributes.forEach((name, value) -> values.put(
                name,
                MessageAttributeValue.builder()
                        .dataType("String")
                        .stringValue(value)
                        .build()));
        sqs.sendMessage(r -> {
            r.queueUrl(queue).messageBody(body).messageAttributes(values);
            if (group != null) {
                r.messageGroupId(group).messageDeduplicationId(UUID.randomUUID().toString());
            }
        });
    }

    private void apply(SqsMessage message) {
        applied.computeIfAbsent(message.body(), b -> new AtomicInteger()).incrementAndGet();
        order.add(message.body());
    }

    private int applied(String body) {
        AtomicInteger n = applied.get(body);
        return n == null ? 0 : n.get();
    }

    private static void pollUntil(SqsInboxLoop loop, BooleanSupplier done) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!done.getAsBoolean()) {
            assertThat(System.nanoTime()).as("still polling after 60 s").isLessThan(deadline);
            loop.pollOnce();
        }
    }

    /**
     * Runs {@code slowWork} on a thread of its own and, once {@code working} says it holds its
     * messages (before, the other consumer might receive them first), polls {@code queue} with
     * another consumer until that thread ends: what that consumer did, which must be nothing.
     */
    private dev.inbox.Deliveries whatAnotherConsumerReceivesWhile(
            String queue, Runnable slowWork, java.util.concurrent.CountDownLatch working) throws Exception {
        Thread slowThread = new Thread(slowWork);
        slowThread.start();
        assertThat(working.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        try (SqsClient otherClient = SqsQueues.client()) {
            SqsInboxLoop other = SqsInboxLoop.lease(otherClient, queue, inbox, this::apply)
                    .keys(SqsKeys.attribute("event-id"))
                    .waitTime(Duration.ofSeconds(1))
                    .build();
            while (slowThread.isAlive()) {
                other.pollOnce();
            }
            return other.counts();
        } finally {
            slowThread.join(30_000);
        }
    }

    private int visibleAndHidden(String queue) {
        return SqsQueues.messagesLeft(sqs, queue);
    }

    @Test
    void aFifoGroupStopsAtAFailedMessage_andKeepsItsOrder_whileOtherGroupsGoOn() {
        String queue = queue(
                "inbox-fifo.fifo",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT,
                        "5",
                        QueueAttributeName.CONTENT_BASED_DEDUPLICATION,
                        "false"));
        for (String body : List.of("a1", "a2", "a3")) {
            send(queue, body, Map.of("event-id", body), "a");
        }
        for (String body : List.of("b1", "b2")) {
            send(queue, body, Map.of("event-id", body), "b");
        }
        AtomicInteger a1Attempts = new AtomicInteger();
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    if (message.body().equals("a1") && a1Attempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("planned failure of a1");
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .failureBackoff(Duration.ofSeconds(1))
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> applied.size() == 5);

        List<String> groupA = order.stream().filter(b -> b.startsWith("a")).toList();
        assertThat(groupA).containsExactly("a1", "a2", "a3");
        assertThat(order.stream().filter(b -> b.startsWith("b")).toList()).containsExactly("b1", "b2");
        assertThat(applied.values()).allMatch(n -> n.get() == 1);
        assertThat(loop.counts().failed()).isEqualTo(1);
        assertThat(visibleAndHidden(queue)).as("messages left on the queue").isZero();
    }

    /**
     * A message without a key on a FIFO queue with no dead-letter queue stays on the queue: the later
     * messages of its group must wait behind it, not be applied ahead of it.
     */
    @Test
    void aFifoMessageWithoutAKeyLeftOnTheQueue_stopsItsGroup_whileOtherGroupsGoOn() {
        String queue = queue(
                "inbox-fifo-keyless.fifo",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT,
                        "30",
                        QueueAttributeName.CONTENT_BASED_DEDUPLICATION,
                        "false"));
        send(queue, "a1", Map.of("event-id", "a1"), "a");
        send(queue, "keyless", Map.of(), "a");
        send(queue, "a2", Map.of("event-id", "a2"), "a");
        send(queue, "b1", Map.of("event-id", "b1"), "b");
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        pollUntil(loop, () -> applied.containsKey("a1") && applied.containsKey("b1"));
        loop.pollOnce();
        assertThat(applied.keySet()).as("applied").containsExactlyInAnyOrder("a1", "b1");
        assertThat(loop.counts().deadLettered()).isEqualTo(1);
    }

    @Test
    void anSnsEnvelope_isUnwrapped_andKeyedLikeTheRawDeliveryOfTheSameEvent() {
        String queue = queue("inbox-sns", Map.of());
        String envelope = snsEnvelope("3f1a2b7c-0000-4000-8000-000000000001", "{\"order\":42}", "evt-42");
        send(queue, envelope, Map.of(), null);
        send(queue, "{\"order\":42}", Map.of("event-id", "evt-42"), null); // the same event, raw delivery
        List<SqsMessage> seen = Collections.synchronizedList(new ArrayList<>());
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    seen.add(message);
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> loop.counts().acknowledged() == 2);

        assertThat(applied("{\"order\":42}")).isEqualTo(1);
        assertThat(loop.counts().duplicates()).isEqualTo(1);
        assertThat(seen).singleElement().satisfies(first -> {
            assertThat(first.body()).isEqualTo("{\"order\":42}");
            assertThat(first.attribute("event-id")).isEqualTo("evt-42");
        });
    }

    @Test
    void snsMessageId_catchesSnsResendingOnePublish_andIsNotTheSqsMessageId() {
        String queue = queue("inbox-sns-retry", Map.of());
        String id = "3f1a2b7c-0000-4000-8000-000000000002";
        send(queue, snsEnvelope(id, "{\"order\":7}", null), Map.of(), null);
        send(queue, snsEnvelope(id, "{\"order\":7}", null), Map.of(), null); // SNS delivering it again
        send(queue, snsEnvelope(id.replace('2', '3'), "{\"order\":7}", null), Map.of(), null); // a new publish
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, this::apply)
                .keys(SqsKeys.snsMessageId())
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> loop.counts().acknowledged() == 3);

        assertThat(applied("{\"order\":7}"))
                .as("one publish applied once, the second publish once")
                .isEqualTo(2);
    }

    @Test
    void workLongerThanTheVisibilityTimeoutAndTheLease_isNeitherHandedOutAgainNorTakenOver() throws Exception {
        String queue = queue("inbox-slow", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2"));
        send(queue, "slow", Map.of("event-id", "slow"), null);
        java.util.concurrent.CountDownLatch working = new java.util.concurrent.CountDownLatch(1);
        SqsInboxLoop slow = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    working.countDown();
                    Thread.sleep(6_000); // three visibility timeouts, three leases
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        assertThat(whatAnotherConsumerReceivesWhile(
                        queue, () -> pollUntil(slow, () -> slow.counts().processed() == 1), working))
                .isEqualTo(new dev.inbox.Deliveries(0, 0, 0, 0, 0, 0));
        assertThat(applied("slow")).isEqualTo(1);
        assertThat(visibleAndHidden(queue)).isZero();
    }

    /**
     * SQS answers a visibility change entry by entry: one it refused (here, the message was deleted
     * under the loop, so its receipt handle is no longer valid) is not a failed call, and was lost
     * unseen; it is logged, with SQS's code, for the message it names.
     */
    @Test
    void aVisibilityChangeSqsRefusesForOneMessage_isLoggedForThatMessage() throws Exception {
        String queue = queue("inbox-refused", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2"));
        send(queue, "deleted-under-it", Map.of("event-id", "deleted-under-it"), null);
        java.util.concurrent.CountDownLatch working = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch refusedLogged = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger refusals = new AtomicInteger();
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(SqsInboxLoop.class.getName());
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                String text = java.text.MessageFormat.format(
                        record.getMessage(), record.getParameters() == null ? new Object[0] : record.getParameters());
                if (text.startsWith("SQS did not change the visibility of 1 messages")
                        && text.contains("ReceiptHandleIsInvalid")) {
                    refusals.incrementAndGet();
                    refusedLogged.countDown();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        try {
            AtomicReference<String> handle = new AtomicReference<>();
            SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                        handle.set(message.message().receiptHandle());
                        working.countDown();
                        assertThat(refusedLogged.await(20, java.util.concurrent.TimeUnit.SECONDS))
                                .as("a refused visibility change logged while the work ran")
                                .isTrue();
                        apply(message);
                    })
                    .keys(SqsKeys.attribute("event-id"))
                    .waitTime(Duration.ofSeconds(1))
                    .build();
            Thread worker = new Thread(() -> pollUntil(loop, () -> loop.counts().processed() == 1));
            worker.start();
            assertThat(working.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            sqs.deleteMessage(r -> r.queueUrl(queue).receiptHandle(handle.get()));
            worker.join(30_000);
            assertThat(refusedLogged.getCount()).as("the refusal logged").isZero();
            assertThat(refusals.get())
                    .as("refusals logged: one, then the stale handle is left alone")
                    .isEqualTo(1);
            assertThat(applied("deleted-under-it")).isEqualTo(1);
        } finally {
            logger.removeHandler(capture);
        }
    }

    /**
     * A handler that never returns keeps its message (claim and visibility renewed) only for the
     * inbox's maxInHand: then the renewals stop, and another consumer receives the message and,
     * once the lease ended, applies it.
     */
    @Test
    void aHandlerThatHangsPastMaxInHand_letsGoOfItsMessage_andAnotherConsumerAppliesIt() throws Exception {
        Inbox bounded = Inbox.builder(store)
                .consumer(inbox.consumer())
                .lease(Duration.ofSeconds(1))
                .maxInHand(Duration.ofSeconds(2))
                .build();
        String queue = queue("inbox-hung", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "1"));
        send(queue, "hung", Map.of("event-id", "hung"), null);
        java.util.concurrent.CountDownLatch working = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch letGo = new java.util.concurrent.CountDownLatch(1);
        SqsInboxLoop hanging = SqsInboxLoop.lease(sqs, queue, bounded, message -> {
                    working.countDown();
                    letGo.await(30, java.util.concurrent.TimeUnit.SECONDS); // hangs until the test ends it
                })
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        Thread hung = new Thread(hanging::pollOnce);
        hung.start();
        try (SqsClient otherClient = SqsQueues.client()) {
            assertThat(working.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            SqsInboxLoop other = SqsInboxLoop.lease(otherClient, queue, bounded, this::apply)
                    .keys(SqsKeys.attribute("event-id"))
                    .waitTime(Duration.ofSeconds(1))
                    .busyBackoff(Duration.ofMillis(200))
                    .build();
            pollUntil(other, () -> applied("hung") == 1);
        } finally {
            letGo.countDown();
            hung.join(30_000);
        }
    }

    /**
     * The reproduction of the adapter-rules issue: a receive's first message is done at once, the
     * next one works for three leases. The done one is completed and deleted only when the receive
     * ends, so until then its claim and its visibility must still be renewed — else a second
     * consumer receives it again, takes over the expired lease and applies it a second time.
     */
    @Test
    void aMessageDoneEarlyInAReceive_staysHeldUntilTheReceiveEnds_soAnotherConsumerCannotApplyItAgain()
            throws Exception {
        String queue = queue("inbox-done-early", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2"));
        send(queue, "first", Map.of("event-id", "first"), null);
        send(queue, "second", Map.of("event-id", "second"), null);
        java.util.concurrent.CountDownLatch working = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger handled = new AtomicInteger();
        SqsInboxLoop slow = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    apply(message);
                    if (handled.incrementAndGet() == 2) { // the receive's second message: the first is done
                        working.countDown();
                        Thread.sleep(6_000); // three visibility timeouts, three leases
                    }
                })
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        AtomicInteger firstReceive = new AtomicInteger();
        dev.inbox.Deliveries seen =
                whatAnotherConsumerReceivesWhile(queue, () -> firstReceive.set(slow.pollOnce()), working);
        assertThat(firstReceive.get()).as("both messages came in one receive").isEqualTo(2);
        assertThat(seen).as("what the other consumer saw").isEqualTo(new dev.inbox.Deliveries(0, 0, 0, 0, 0, 0));
        assertThat(applied("first")).isEqualTo(1);
        assertThat(applied("second")).isEqualTo(1);
        assertThat(visibleAndHidden(queue)).isZero();
    }

    /**
     * Two loops (on two queues of one consumer) each wait in place on an event the other's receive
     * holds: A holds x (in work) while y is held elsewhere, B then claims y and applies it, and waits
     * on x; A finishes x and waits on y. Holding what they had done or claimed while waiting, they
     * would wait on each other for ever (the broker storm on DynamoDB stalled so); each records what
     * it has done and lets go of what it has not begun before it waits, and both go on.
     */
    @Test
    void twoLoopsWaitingOnEachOthersEvents_bothGoOn() throws Exception {
        String queueA = queue("inbox-wait-a", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
        String queueB = queue("inbox-wait-b", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
        send(queueA, "a-x", Map.of("event-id", "x"), null);
        send(queueA, "a-y", Map.of("event-id", "y"), null);
        send(queueB, "b-y", Map.of("event-id", "y"), null);
        send(queueB, "b-x", Map.of("event-id", "x"), null);
        dev.inbox.Claim elsewhere = inbox.claims()
                .claimAll(List.of(dev.inbox.keys.DedupKeys.eventId("y")))
                .get(0);
        java.util.concurrent.CountDownLatch aWorking = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
        SqsInboxLoop a = SqsInboxLoop.lease(sqs, queueA, inbox, message -> {
                    if (message.body().equals("a-x")) {
                        aWorking.countDown();
                        goOn.await();
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .busyBackoff(Duration.ofMillis(100))
                .waitTime(Duration.ofSeconds(1))
                .build();
        SqsInboxLoop b = SqsInboxLoop.lease(sqs, queueB, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .busyBackoff(Duration.ofMillis(100))
                .waitTime(Duration.ofSeconds(1))
                .build();
        Thread threadA = new Thread(() -> pollUntil(a, () -> a.counts().acknowledged() == 2));
        Thread threadB = new Thread(() -> pollUntil(b, () -> b.counts().acknowledged() == 2));
        threadA.start();
        try {
            assertThat(aWorking.await(30, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            elsewhere.release();
            threadB.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (b.counts().busy() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            goOn.countDown();
            threadA.join(20_000);
            threadB.join(20_000);
            assertThat(threadA.isAlive() || threadB.isAlive())
                    .as("a loop still waiting after 20 s: the two wait on each other")
                    .isFalse();
        } finally {
            goOn.countDown();
            a.stop();
            b.stop();
            threadA.join(30_000);
            threadB.join(30_000);
        }
        assertThat(applied("a-x") + applied("b-x")).as("x applied").isEqualTo(1);
        assertThat(applied("a-y") + applied("b-y")).as("y applied").isEqualTo(1);
    }

    @Test
    void workThatKeepsFailing_isLeftToTheRedrivePolicy() {
        String dead = queue("inbox-redrive-dead", Map.of());
        String queue = queue(
                "inbox-redrive",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT,
                        "2",
                        QueueAttributeName.REDRIVE_POLICY,
                        SqsQueues.redrive(sqs, dead, 2)));
        send(queue, "poison", Map.of("event-id", "poison"), null);
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    throw new IllegalStateException("always fails");
                })
                .keys(SqsKeys.attribute("event-id"))
                .failureBackoff(Duration.ZERO)
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> visibleAndHidden(dead) == 1);

        assertThat(loop.counts().failed()).isEqualTo(2);
        List<Message> moved = sqs.receiveMessage(r -> r.queueUrl(dead)
                        .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                .messages();
        assertThat(moved).extracting(Message::body).containsExactly("poison");
    }

    @Test
    void aFailurePolicyThatGivesUp_movesTheMessageToTheDeadLetterQueue_afterItsAttempts() {
        String dead = queue("inbox-give-up-dead", Map.of());
        String queue =
                queue("inbox-give-up", Map.of(QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(sqs, dead, 100)));
        send(queue, "poison", Map.of("event-id", "poison"), null);
        send(queue, "fine", Map.of("event-id", "fine"), null);
        AtomicInteger tries = new AtomicInteger();
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    if (message.body().equals("poison")) {
                        tries.incrementAndGet();
                        throw new IllegalStateException("always fails");
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .failurePolicy(FailurePolicy.attempts(3, Duration.ofMillis(1)))
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> loop.counts().deadLettered() == 1 && applied("fine") == 1);

        assertThat(tries).as("attempts before the policy gave up").hasValue(3);
        assertThat(loop.counts().failed()).isEqualTo(2);
        assertThat(visibleAndHidden(queue)).as("deleted from its queue").isZero();
        assertThat(sqs.receiveMessage(r -> r.queueUrl(dead)).messages())
                .extracting(Message::body)
                .containsExactly("poison");
    }

    @Test
    void aFailurePolicyThatGivesUp_withoutADeadLetterQueue_putsTheMessageBack_neverDropsIt() {
        String queue = queue("inbox-give-up-alone", Map.of());
        send(queue, "poison", Map.of("event-id", "poison"), null);
        AtomicInteger tries = new AtomicInteger();
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, message -> {
                    tries.incrementAndGet();
                    throw new IllegalStateException("always fails");
                })
                .keys(SqsKeys.attribute("event-id"))
                .failurePolicy(FailurePolicy.attempts(1, Duration.ofMillis(1)))
                .waitTime(Duration.ofSeconds(1))
                .build();

        pollUntil(loop, () -> tries.get() >= 3);

        assertThat(loop.counts().deadLettered()).isZero();
        assertThat(visibleAndHidden(queue)).as("still on its queue").isEqualTo(1);
    }

    @Test
    void aMessageWithoutAKey_isMovedToTheRedriveDeadLetterQueue_orLeftWithoutOne() {
        String dead = queue("inbox-keyless-dead", Map.of());
        String withDlq =
                queue("inbox-keyless", Map.of(QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(sqs, dead, 5)));
        send(withDlq, "no key", Map.of("other", "x"), null);
        send(withDlq, "keyed", Map.of("event-id", "k"), null);
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, withDlq, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        pollUntil(loop, () -> loop.counts().processed() == 1 && loop.counts().deadLettered() == 1);
        assertThat(applied("no key")).isZero();
        assertThat(visibleAndHidden(withDlq)).isZero();
        Message moved = sqs.receiveMessage(r -> r.queueUrl(dead).messageAttributeNames("All"))
                .messages()
                .get(0);
        assertThat(moved.body()).isEqualTo("no key");
        assertThat(moved.messageAttributes()).containsKey("other");

        String without = queue("inbox-keyless-alone", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2"));
        send(without, "no key either", Map.of(), null);
        SqsInboxLoop alone = SqsInboxLoop.lease(sqs, without, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .waitTime(Duration.ofSeconds(1))
                .build();
        pollUntil(alone, () -> alone.counts().deadLettered() == 1);
        assertThat(applied("no key either")).isZero();
        assertThat(visibleAndHidden(without))
                .as("left on the queue, never lost")
                .isEqualTo(1);
    }

    /**
     * A copy SQS accepted longer ago than the window the keys admit is EXPIRED: moved to the redrive
     * dead-letter queue like a message without a usable key, never applied; a fresh one is applied.
     */
    @Test
    void aCopyOlderThanTheWindow_isExpired_andMovedToTheDeadLetterQueue_neverApplied() throws Exception {
        Duration window = Duration.ofSeconds(3);
        String dead = queue("inbox-expired-dead", Map.of());
        String queue =
                queue("inbox-expired", Map.of(QueueAttributeName.REDRIVE_POLICY, SqsQueues.redrive(sqs, dead, 5)));
        send(queue, "old", Map.of("event-id", "old"), null);
        Thread.sleep(window.plusMillis(200).toMillis()); // the copy ages past the window on SQS's clock
        send(queue, "fresh", Map.of("event-id", "fresh"), null);
        SqsInboxLoop loop = SqsInboxLoop.lease(sqs, queue, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id").refusingCopiesOlderThan(window))
                .waitTime(Duration.ofSeconds(1))
                .build();
        pollUntil(loop, () -> loop.counts().processed() == 1 && loop.counts().deadLettered() == 1);
        assertThat(applied("old")).isZero();
        assertThat(applied("fresh")).isEqualTo(1);
        assertThat(sqs.receiveMessage(r -> r.queueUrl(dead).waitTimeSeconds(1)).messages())
                .singleElement()
                .extracting(Message::body)
                .isEqualTo("old");
    }

    @Test
    void queue_readsTheAttributes_andReceivesAskForTheLeaseWhenTheQueuesVisibilityIsShorter() {
        String dead = queue("inbox-attrs-dead", Map.of());
        String queue = queue(
                "inbox-attrs",
                Map.of(
                        QueueAttributeName.VISIBILITY_TIMEOUT,
                        "20000",
                        QueueAttributeName.REDRIVE_POLICY,
                        SqsQueues.redrive(sqs, dead, 25)));
        QueueSettings settings =
                SqsInboxLoop.lease(sqs, queue, inbox, this::apply).build().queue();
        assertThat(settings.visibilityTimeout()).isEqualTo(Duration.ofSeconds(20_000));
        // ElasticMQ keeps every queue's MessageRetentionPeriod at SQS's default, four days.
        assertThat(settings.messageRetention()).isEqualTo(Duration.ofDays(4));
        assertThat(settings.maxReceiveCount()).isEqualTo(25);
        assertThat(settings.deadLetterQueueUrl()).isEqualTo(dead);
        assertThat(settings.fifo()).isFalse();
        assertThat(settings.requiredRetention()).as("25 receives x 20,000 s").isEqualTo(Duration.ofSeconds(500_000));
        assertThat(new QueueSettings(Duration.ofSeconds(30), Duration.ofSeconds(600), 25, null, false)
                        .requiredRetention())
                .isEqualTo(Duration.ofSeconds(750));
        assertThat(new QueueSettings(Duration.ofSeconds(30), Duration.ofSeconds(600), 0, null, false)
                        .requiredRetention())
                .as("without a redrive policy, the message retention bounds it")
                .isEqualTo(Duration.ofSeconds(600));

        // A queue whose visibility timeout is shorter than the lease: receives ask for the lease.
        String quick = queue("inbox-quick", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "1"));
        SqsInboxLoop longerLease = SqsInboxLoop.lease(sqs, quick, inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .build();
        assertThat(longerLease.visibilityTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(longerLease.queue().visibilityTimeout())
                .as("the queue's own")
                .isEqualTo(Duration.ofSeconds(1));
        send(quick, "quick-1", Map.of("event-id", "e-quick"), null);
        pollUntil(longerLease, () -> applied("quick-1") == 1);
        assertThat(visibleAndHidden(quick)).as("deleted").isZero();
        assertThat(SqsInboxLoop.lease(sqs, queue, inbox, this::apply).build().visibilityTimeout())
                .as("a queue whose own is longer keeps it")
                .isEqualTo(Duration.ofSeconds(20_000));
        assertThatThrownBy(() ->
                        SqsInboxLoop.lease(sqs, quick, inbox, this::apply).visibilityTimeout(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be shorter than the inbox's lease");
    }

    @Test
    void badArguments_areRefusedBeforeAnyCall() {
        SqsMessageHandler handler = this::apply;
        assertThatThrownBy(() -> SqsInboxLoop.lease(null, "q", inbox, handler))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SqsInboxLoop.lease(sqs, " ", inbox, handler))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queueUrl");
        assertThatThrownBy(() -> SqsInboxLoop.lease(sqs, "q", null, handler))
                .isInstanceOf(IllegalArgumentException.class);
        SqsInboxLoop.Builder builder = SqsInboxLoop.lease(sqs, "q", inbox, handler);
        assertThatThrownBy(() -> builder.maxMessages(11)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.maxMessages(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.waitTime(Duration.ofSeconds(21))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.waitTime(Duration.ofMillis(500))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.busyBackoff(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.failureBackoff(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.keys(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.deadLetterQueue("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.visibilityTimeout(Duration.ofHours(13)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** An SNS notification as SNS writes it to an SQS queue with raw message delivery off. */
    static String snsEnvelope(String messageId, String message, String eventId) {
        String attributes = eventId == null
                ? ""
                : ",\"MessageAttributes\":{\"event-id\":{\"Type\":\"String\",\"Value\":\"" + eventId + "\"}}";
        return "{\"Type\":\"Notification\",\"MessageId\":\"" + messageId + "\","
                + "\"TopicArn\":\"arn:aws:sns:us-east-1:123456789012:orders\","
                + "\"Message\":" + quoted(message) + ","
                + "\"Timestamp\":\"2026-12-02T06:00:00.000Z\",\"SignatureVersion\":\"1\","
                + "\"Signature\":\"EXAMPLE\",\"SigningCertURL\":\"https://sns.us-east-1.amazonaws.com/x.pem\","
                + "\"UnsubscribeURL\":\"https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe\""
                + attributes + "}";
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
