package dev.inbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.inbox.Inbox;
import dev.inbox.caffeine.CaffeineInboxStore;
import dev.inbox.keys.DedupKeys;
import dev.inbox.testing.LambdaEvents;
import dev.inbox.testing.SqsQueues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link SqsLambdaBatch} called as Lambda calls it, with events built from messages received from
 * the real SQS server, and its answer applied to the queue as Lambda applies it (done records
 * deleted, reported ones made visible again).
 */
@Timeout(60)
class SqsLambdaBatchTest {

    private final SqsClient sqs = SqsQueues.client();
    private final CaffeineInboxStore store = CaffeineInboxStore.builder().build();
    private final Inbox inbox = Inbox.builder(store)
            .consumer("lambda-" + UUID.randomUUID())
            .lease(Duration.ofSeconds(30))
            .build();
    private final Map<String, AtomicInteger> applied = new ConcurrentHashMap<>();
    private final List<String> queues = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        queues.forEach(q -> sqs.deleteQueue(r -> r.queueUrl(q)));
        sqs.close();
        store.close();
    }

    private String queue(String prefix) {
        String url = SqsQueues.create(sqs, prefix, Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
        queues.add(url);
        return url;
    }

    private void send(String queue, String body, String eventId, String group) {
        sqs.sendMessage(r -> {
            r.queueUrl(queue).messageBody(body);
            if (eventId != null) {
                r.messageAttributes(Map.of(
                        "event-id",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue(eventId)
                                .build()));
            }
            if (group != null) {
                r.messageGroupId(group).messageDeduplicationId(UUID.randomUUID().toString());
            }
        });
    }

    /** Receives {@code count} messages and builds the event Lambda would hand the function. */
    private SQSEvent receive(String queue, int count) {
        String arn = SqsQueues.arnOf(sqs, queue);
        List<Message> received = new ArrayList<>();
        while (received.size() < count) {
            received.addAll(sqs.receiveMessage(r -> r.queueUrl(queue)
                            .maxNumberOfMessages(10)
                            .waitTimeSeconds(1)
                            .messageAttributeNames("All")
                            .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                    .messages());
        }
        return LambdaEvents.event(received, arn);
    }

    /** What Lambda does with the answer: deletes what is done, returns the rest to the queue. */
    private Set<String> settle(String queue, SQSEvent event, SQSBatchResponse response) {
        Set<String> reported = response.getBatchItemFailures().stream()
                .map(SQSBatchResponse.BatchItemFailure::getItemIdentifier)
                .collect(Collectors.toSet());
        Set<String> bodies = new java.util.HashSet<>();
        for (SQSEvent.SQSMessage record : event.getRecords()) {
            if (reported.contains(record.getMessageId())) {
                bodies.add(record.getBody());
                sqs.changeMessageVisibility(r -> r.queueUrl(queue)
                        .receiptHandle(record.getReceiptHandle())
                        .visibilityTimeout(0));
            } else {
                sqs.deleteMessage(r -> r.queueUrl(queue).receiptHandle(record.getReceiptHandle()));
            }
        }
        return bodies;
    }

    private void apply(SqsMessage message) {
        applied.computeIfAbsent(message.body(), b -> new AtomicInteger()).incrementAndGet();
    }

    private int applied(String body) {
        AtomicInteger n = applied.get(body);
        return n == null ? 0 : n.get();
    }

    @Test
    void doneRecordsAreDeleted_theRestReported_untilEachEventIsAppliedOnce() {
        String queue = queue("inbox-lambda");
        send(queue, "a", "a", null);
        send(queue, "b", "b", null);
        send(queue, "a", "a", null); // a re-send
        send(queue, "keyless", null, null);
        send(queue, "c", "c", null);
        AtomicInteger bAttempts = new AtomicInteger();
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, message -> {
                    if (message.body().equals("b") && bAttempts.incrementAndGet() == 1) {
                        throw new IllegalStateException("planned failure of b");
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .build();

        SQSEvent first = receive(queue, 5);
        assertThat(settle(queue, first, batch.handle(first, context(30_000))))
                .containsExactlyInAnyOrder("b", "keyless");

        SQSEvent second = receive(queue, 2);
        assertThat(settle(queue, second, batch.handle(second, context(30_000)))).containsExactly("keyless");
        assertThat(applied).containsOnlyKeys("a", "b", "c");
        assertThat(applied.values()).allMatch(n -> n.get() == 1);
    }

    /**
     * Reported, a busy record would come back only after the visibility timeout, and each receive
     * counts towards the redrive policy's {@code maxReceiveCount}: held long enough, the event would
     * be dead-lettered unapplied. It is waited for within the invocation instead.
     */
    @Test
    void aBusyRecord_isWaitedForInPlace_andAppliedOnceTheHolderLetsGo_notReported() throws Exception {
        String queue = queue("inbox-lambda-busy");
        send(queue, "x", "x", null);
        send(queue, "y", "y", null);
        dev.inbox.Claim holder =
                inbox.claims().claimAll(List.of(DedupKeys.eventId("x"))).get(0); // another delivery of x, in hand
        assertThat(holder.isAcquired()).isTrue();
        CompletableFuture<Void> letsGo =
                CompletableFuture.runAsync(holder::release, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .busyBackoff(Duration.ofMillis(50))
                .build();
        SQSEvent event = receive(queue, 2);
        assertThat(settle(queue, event, batch.handle(event, context(20_000))))
                .as("records reported")
                .isEmpty();
        letsGo.get(10, TimeUnit.SECONDS);
        assertThat(applied("x")).isEqualTo(1);
        assertThat(applied("y")).isEqualTo(1);
    }

    @Test
    void aRecordStillBusyWhenTheInvocationsTimeIsUp_isReported_andTheOthersAreDone() {
        String queue = queue("inbox-lambda-busy-long");
        send(queue, "x", "x", null);
        send(queue, "y", "y", null);
        dev.inbox.Claim holder =
                inbox.claims().claimAll(List.of(DedupKeys.eventId("x"))).get(0); // held past the invocation
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .busyBackoff(Duration.ofMillis(50))
                .build();
        SQSEvent event = receive(queue, 2);
        assertThat(settle(queue, event, batch.handle(event, context(1_500))))
                .as("records reported")
                .containsExactly("x");
        assertThat(applied("x")).isZero();
        assertThat(applied("y")).isEqualTo(1);
        holder.release();
        assertThatThrownBy(() -> SqsLambdaBatch.lease(inbox, this::apply).busyBackoff(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyBackoff");
    }

    /**
     * Nothing renews an invocation's claims: a claim that lapsed while the work still ran would let
     * another delivery of the event (a duplicate SQS delivery, a producer's re-send) apply it again.
     * The claims hold for the invocation's whole time, which the invocation cannot outlive.
     */
    @Test
    void workLongerThanTheInboxLease_keepsItsEvent_forTheWholeInvocation() throws Exception {
        Inbox shortLease = Inbox.builder(store)
                .consumer("lambda-short-" + UUID.randomUUID())
                .lease(Duration.ofMillis(500))
                .build();
        String queue = queue("inbox-lambda-long-work");
        send(queue, "x", "x", null);
        List<dev.inbox.spi.ClaimStatus> elsewhere = new java.util.concurrent.CopyOnWriteArrayList<>();
        SqsLambdaBatch batch = SqsLambdaBatch.lease(shortLease, message -> {
                    Thread.sleep(1_000); // past the inbox's lease
                    dev.inbox.Claim other =
                            shortLease.claims().claim(DedupKeys.eventId("x")); // another delivery of x, meanwhile
                    elsewhere.add(other.status());
                    if (other.isAcquired()) {
                        other.release();
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .build();
        SQSEvent event = receive(queue, 1);
        assertThat(batch.handle(event, context(20_000)).getBatchItemFailures()).isEmpty();
        assertThat(elsewhere)
                .as("another delivery's claim while the work ran past the inbox's lease")
                .containsExactly(dev.inbox.spi.ClaimStatus.BUSY);
    }

    @Test
    void aTimedOutInvocation_holdsItsEventsOnlyUntilItsEnd_notForTheInboxLease() throws Exception {
        String queue = queue("inbox-lambda-timeout");
        send(queue, "x", "x", null);
        SQSEvent event = receive(queue, 1);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch inWork = new CountDownLatch(1);
        SqsLambdaBatch timingOut = SqsLambdaBatch.lease(inbox, message -> {
                    inWork.countDown();
                    stuck.await(); // Lambda stops this invocation at its timeout; it never applies
                })
                .keys(SqsKeys.attribute("event-id"))
                .build();
        CompletableFuture<SQSBatchResponse> first =
                CompletableFuture.supplyAsync(() -> timingOut.handle(event, context(1_000)));
        assertThat(inWork.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(1_500); // past the first invocation's end, far within the inbox's 30 s lease

        SqsLambdaBatch retry = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .build();
        assertThat(retry.handle(event, context(30_000)).getBatchItemFailures())
                .as("the retry's record, once the timed-out invocation's claim ended")
                .isEmpty();
        assertThat(applied("x")).isEqualTo(1);
        stuck.countDown();
        first.get(10, TimeUnit.SECONDS);
    }

    /**
     * On a FIFO queue a record that is not done holds back the later records of its message group,
     * and only those: a record of another group after it in the batch runs and is done. Reported with
     * the rest of the batch, as AWS's general advice has it, it came back and counted towards its
     * {@code maxReceiveCount} each time: a poison message dead-lettered the events of other groups
     * that shared its batches (the FIFO Lambda kit's A4 and A10 lost them).
     */
    @Test
    void onAFifoQueue_aRecordNotDone_holdsBackTheRestOfItsGroup_andOnlyThat() {
        String queue = SqsQueues.create(sqs, "inbox-lambda.fifo", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
        queues.add(queue);
        send(queue, "g1", "g1", "a");
        send(queue, "g2", "g2", "a");
        send(queue, "g3", "g3", "a");
        send(queue, "h1", "h1", "b");
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, message -> {
                    if (message.body().equals("g2")) {
                        throw new IllegalStateException("planned failure of g2");
                    }
                    apply(message);
                })
                .keys(SqsKeys.attribute("event-id"))
                .build();
        SQSEvent event = byGroup(receive(queue, 4));
        List<String> order =
                event.getRecords().stream().map(SQSEvent.SQSMessage::getBody).toList();
        assertThat(order).containsExactly("g1", "g2", "g3", "h1");
        Set<String> reported = settle(queue, event, batch.handle(event, context(30_000)));
        assertThat(reported).containsExactlyInAnyOrder("g2", "g3");
        assertThat(applied.keySet()).containsExactlyInAnyOrder("g1", "h1");
    }

    /** The event with its records ordered by message group (each group's own order kept), as Lambda may batch them. */
    private static SQSEvent byGroup(SQSEvent event) {
        List<SQSEvent.SQSMessage> records = new ArrayList<>(event.getRecords());
        records.sort(java.util.Comparator.comparing(r -> r.getAttributes().get("MessageGroupId")));
        event.setRecords(records);
        return event;
    }

    /**
     * A record without a key on a FIFO queue is not done: the records of its group after it must not
     * run ahead of it (they were once applied, and reported all the same, so the group's later events
     * were applied before its earlier one); another group's record goes on.
     */
    @Test
    void onAFifoQueue_aRecordWithoutAKey_holdsBackItsGroup_andNothingAfterItInTheGroupIsApplied() {
        String queue =
                SqsQueues.create(sqs, "inbox-lambda-keyless.fifo", Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
        queues.add(queue);
        send(queue, "k1", "k1", "a");
        send(queue, "keyless", null, "a");
        send(queue, "k2", "k2", "a");
        send(queue, "other", "other", "b");
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .build();
        SQSEvent event = byGroup(receive(queue, 4));
        List<String> order =
                event.getRecords().stream().map(SQSEvent.SQSMessage::getBody).toList();
        assertThat(order).containsExactly("k1", "keyless", "k2", "other");
        Set<String> reported = settle(queue, event, batch.handle(event, context(30_000)));
        assertThat(reported).containsExactlyInAnyOrder("keyless", "k2");
        assertThat(applied.keySet()).as("applied").containsExactlyInAnyOrder("k1", "other");
    }

    @Test
    void transactional_commitsEachRecordsWritesWithItsClaim_andReportsWhatRolledBack() throws Exception {
        String queue = queue("inbox-lambda-tx");
        send(queue, "a", "a", null);
        send(queue, "a", "a", null);
        send(queue, "b", "b", null);
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(dev.inbox.testing.TestServers.postgres());
        config.setMaximumPoolSize(2);
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config)) {
            dev.inbox.postgres.PostgresInboxStore postgres = dev.inbox.postgres.PostgresInboxStore.builder(pool)
                    .table("inbox_lambda_test")
                    .build();
            postgres.createSchemaIfMissing();
            String ledger =
                    "inbox_lambda_ledger_" + UUID.randomUUID().toString().replace("-", "");
            try (java.sql.Connection c = pool.getConnection();
                    java.sql.Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + ledger + " (body TEXT NOT NULL)");
            }
            AtomicInteger bAttempts = new AtomicInteger();
            SqsLambdaBatch batch = SqsLambdaBatch.transactional(
                            dev.inbox.jdbc.TransactionalInbox.builder(postgres, pool)
                                    .consumer("lambda-" + UUID.randomUUID())
                                    .build(),
                            (message, connection) -> {
                                try (java.sql.PreparedStatement insert =
                                        connection.prepareStatement("INSERT INTO " + ledger + " VALUES (?)")) {
                                    insert.setString(1, message.body());
                                    insert.executeUpdate();
                                }
                                if (message.body().equals("b") && bAttempts.incrementAndGet() == 1) {
                                    throw new IllegalStateException("planned failure of b, after its write");
                                }
                            })
                    .keys(SqsKeys.attribute("event-id"))
                    .build();
            try {
                SQSEvent first = receive(queue, 3);
                assertThat(settle(queue, first, batch.handle(first, context(30_000))))
                        .containsExactly("b");
                SQSEvent second = receive(queue, 1);
                assertThat(settle(queue, second, batch.handle(second, context(30_000))))
                        .isEmpty();
                try (java.sql.Connection c = pool.getConnection();
                        java.sql.Statement st = c.createStatement();
                        java.sql.ResultSet rows = st.executeQuery(
                                "SELECT body, count(*) FROM " + ledger + " GROUP BY body ORDER BY body")) {
                    Map<String, Integer> counts = new HashMap<>();
                    while (rows.next()) {
                        counts.put(rows.getString(1), rows.getInt(2));
                    }
                    assertThat(counts)
                            .as("rows committed per event")
                            .containsOnly(Map.entry("a", 1), Map.entry("b", 1));
                }
            } finally {
                try (java.sql.Connection c = pool.getConnection();
                        java.sql.Statement st = c.createStatement()) {
                    st.execute("DROP TABLE " + ledger);
                }
            }
        }
    }

    /**
     * A response listing every record would be read as success by an event source mapping without
     * {@code ReportBatchItemFailures}, and Lambda would delete them all: the invocation fails instead.
     */
    @Test
    void whenNoRecordIsDone_theInvocationFails_soLambdaReturnsThemAllWhateverTheMappingReports() {
        String queue = queue("inbox-lambda-all-failed");
        send(queue, "p", "p", null);
        send(queue, "no key", null, null);
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, message -> {
                    throw new IllegalStateException("planned failure of " + message.body());
                })
                .keys(SqsKeys.attribute("event-id"))
                .build();
        SQSEvent event = receive(queue, 2);
        assertThatThrownBy(() -> batch.handle(event, context(30_000)))
                .isInstanceOfSatisfying(
                        SqsBatchFailedException.class,
                        failed -> assertThat(failed.messageIds())
                                .containsExactlyInAnyOrderElementsOf(event.getRecords().stream()
                                        .map(SQSEvent.SQSMessage::getMessageId)
                                        .toList()))
                .hasMessageContaining("none of the 2 records");

        SqsLambdaBatch healed = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .build();
        assertThat(healed.handle(event, context(30_000)).getBatchItemFailures())
                .as("one record done, so the keyless one is reported, not thrown")
                .hasSize(1);
        assertThat(applied("p"))
                .as("its claim was released when the work failed")
                .isEqualTo(1);
        assertThat(healed.handle(new SQSEvent(), context(30_000)).getBatchItemFailures())
                .as("an event without records")
                .isEmpty();
    }

    @Test
    void noTimeLeft_failsTheInvocation_andClaimsNothing() {
        String queue = queue("inbox-lambda-late");
        send(queue, "late", "late", null);
        SQSEvent event = receive(queue, 1);
        SqsLambdaBatch batch = SqsLambdaBatch.lease(inbox, this::apply)
                .keys(SqsKeys.attribute("event-id"))
                .build();
        assertThatThrownBy(() -> batch.handle(event, context(0)))
                .isInstanceOfSatisfying(
                        SqsBatchFailedException.class,
                        failed -> assertThat(failed.messageIds())
                                .containsExactly(event.getRecords().get(0).getMessageId()));
        assertThat(batch.handle(event, context(30_000)).getBatchItemFailures())
                .as("nothing was claimed by the late invocation")
                .isEmpty();
        assertThat(applied("late")).isEqualTo(1);
        assertThatThrownBy(() -> batch.handle(null, context(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> batch.handle(event, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SqsLambdaBatch.lease(null, this::apply)).isInstanceOf(IllegalArgumentException.class);
    }

    static Context context(int remainingMillis) {
        return LambdaEvents.context(remainingMillis);
    }
}
