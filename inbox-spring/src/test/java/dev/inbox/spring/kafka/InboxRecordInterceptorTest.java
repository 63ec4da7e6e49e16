package dev.inbox.spring.kafka;

import static dev.inbox.spring.kafka.SpringKafka.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Claim;
import dev.inbox.kafka.RecordKeys;
import dev.inbox.keys.DedupKeys;
import dev.inbox.spring.Database;
import dev.inbox.spring.SpringInbox;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The interceptor in Spring Kafka's own listener container, against the real broker: each pitfall
 * users of the peers hit has a test here that fails if we fall into it.
 */
class InboxRecordInterceptorTest {

    private static final Duration BUSY_BACKOFF = Duration.ofMillis(100);

    @RegisterExtension
    static final Database db = new Database();

    /** spring-kafka #2372 and #2287: a skipped duplicate's offset is committed, and nothing is left over. */
    @Test
    void duplicatesAreSkipped_theirOffsetsCommitted_andLaterRecordsStillClaimed() throws Exception {
        List<String> reported = new CopyOnWriteArrayList<>();
        SpringInbox inbox = SpringInbox.leaseOnly(dev.inbox.Inbox.builder(
                        dev.inbox.caffeine.CaffeineInboxStore.builder().build())
                .consumer("memory")
                .metrics(new dev.inbox.InboxMetrics() {
                    @Override
                    public void delivered(String consumer, dev.inbox.DeliveryOutcome outcome) {
                        reported.add(consumer + ":" + outcome);
                    }
                })
                .build());
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        List<String> applied = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> applied.add(r.value()));
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("e1", "e2", "e1", "e3", "e2");
            container.start();
            try {
                await("every offset committed, the trailing duplicate's included", 60, () -> kafka.committed() == 5);
                kafka.send("e3", "e4");
                await("the next two committed", 60, () -> kafka.committed() == 7);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("e1", "e2", "e3", "e4");
        assertThat(interceptor.counts().duplicates()).isEqualTo(3);
        assertThat(interceptor.counts().processed()).isEqualTo(4);
        assertThat(reported)
                .as("each delivery reported to InboxMetrics.delivered")
                .filteredOn(r -> r.endsWith("DUPLICATE"))
                .hasSize(3)
                .allMatch(r -> r.startsWith("memory:"));
        assertThat(reported).filteredOn(r -> r.endsWith("PROCESSED")).hasSize(4);
        assertThat(inbox.inbox()
                        .claims()
                        .claim(DedupKeys.cloudEvent("/tests", "e4"))
                        .status())
                .as("the last event's claim was completed, not left held")
                .hasToString("DUPLICATE");
    }

    /**
     * A record whose event another delivery holds is sent back until the holder lets go — longer than
     * the ten attempts after which Spring Kafka's default error handling would commit past it.
     */
    @Tag("extended") // CI and -Pextended; A8 of InboxRecordInterceptorKitTest
    @Test
    void aBusyRecord_isRedeliveredUntilTheHolderLetsGo_neverSkipped() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        List<String> applied = new CopyOnWriteArrayList<>();
        Claim holder = inbox.inbox().claims().claim(DedupKeys.cloudEvent("/tests", "b1"));
        assertThat(holder.isAcquired()).isTrue();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> applied.add(r.value()));
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("b1", "b2");
            container.start();
            try {
                await(
                        "more busy attempts than the default handler allows",
                        60,
                        () -> interceptor.counts().busy() > 12);
                assertThat(applied).as("nothing past the held event").isEmpty();
                assertThat(kafka.committed()).as("nothing committed past it").isLessThan(1);
                assertThat(holder.release()).isTrue(); // the other delivery failed and gave the event back
                await("both committed", 60, () -> kafka.committed() == 2);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("b1", "b2");
    }

    @Test
    void aFailingListener_releasesItsClaim_soTheRetryAppliesTheEventOnce() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        List<String> applied = new CopyOnWriteArrayList<>();
        AtomicInteger attempts = new AtomicInteger();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> {
                if (r.value().equals("f1") && attempts.incrementAndGet() < 3) {
                    throw new IllegalStateException("the listener failed");
                }
                applied.add(r.value());
            });
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("f1", "f2");
            container.start();
            try {
                // A claim left held (lease: one minute) would make the retries BUSY for that long.
                await("both committed", 20, () -> kafka.committed() == 2);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("f1", "f2");
        assertThat(interceptor.counts().busy())
                .as("the retries found the claim released")
                .isZero();
    }

    /**
     * Transactional mode: the claim joins the listener's database transaction. A listener that fails
     * after its write rolls both back; a poison record the after-rollback processor finally gives up on
     * leaves neither a business row nor an inbox record (Wolverine #1677 committed them apart); skipping
     * duplicates inside the transaction works and commits their offsets (spring-kafka #4088).
     */
    @Test
    void transactionalMode_theClaimAndTheListenersWritesCommitOrRollBackTogether() throws Exception {
        String run = Database.run();
        SpringInbox inbox = db.joining(run);
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        AtomicInteger failures = new AtomicInteger();
        List<String> seen = new CopyOnWriteArrayList<>();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> {
                if (r.value().equals("t1")) {
                    // The claim is already a COMPLETED record in the listener's transaction, not yet committed.
                    seen.add(db.completedRecords(run) + " in the transaction, " + db.committedRecords(run)
                            + " committed");
                }
                db.apply(run, r.value());
                if (r.value().equals("poison") || (r.value().equals("t2") && failures.incrementAndGet() < 3)) {
                    throw new IllegalStateException("the listener failed after its write");
                }
            });
            container.getContainerProperties().setTransactionManager(db.transactions);
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("t1", "t2", "t1", "poison", "t3", "t2", "t3");
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 7);
            } finally {
                container.stop();
            }
        }
        assertThat(db.applications(run))
                .as("each event applied once; the poison record's writes rolled back")
                .containsOnlyKeys("t1", "t2", "t3")
                .allSatisfy((event, times) -> assertThat(times).as(event).isEqualTo(1L));
        assertThat(db.records(run))
                .as("inbox records: the poison record's claim rolled back with its writes")
                .isEqualTo(3);
        assertThat(interceptor.counts().duplicates()).isEqualTo(3);
        assertThat(seen).containsExactly("1 in the transaction, 0 committed");
    }

    /**
     * A container transaction the claim does not join (a lease-only inbox under a
     * DataSourceTransactionManager; a KafkaTransactionManager is the same case): Spring Kafka calls
     * {@code success()} inside the transaction, before its commit. The claim is completed only after
     * the commit; when the commit fails the claim is released, and the redelivery applies the event.
     */
    @Test
    void aTransactionTheClaimDidNotJoin_completesAfterTheCommit_andAFailedCommitLosesNothing() throws Exception {
        String run = Database.run();
        SpringInbox inbox = Database.memoryInbox();
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        AtomicInteger commits = new AtomicInteger();
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> {
                db.apply(run, r.value());
                if (r.value().equals("c2") && commits.incrementAndGet() == 1) {
                    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public void beforeCommit(boolean readOnly) {
                            throw new IllegalStateException("the commit fails after the listener returned");
                        }
                    });
                }
            });
            container.getContainerProperties().setTransactionManager(db.transactions);
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("c1", "c2", "c3");
            container.start();
            try {
                await("every offset committed", 60, () -> kafka.committed() == 3);
            } finally {
                container.stop();
            }
        }
        assertThat(db.applications(run))
                .as("each event's write committed once: c2's first commit failed, its claim was released")
                .containsOnlyKeys("c1", "c2", "c3")
                .allSatisfy((event, times) -> assertThat(times).as(event).isEqualTo(1L));
        assertThat(commits).hasValue(2);
    }

    /**
     * Adapter kit rule A10 under the error handler {@link InboxKafka#configure} installs when the
     * container has none (the Boot starter's default): a record whose listener fails on every
     * attempt is retried every busy back-off — not ten times at once and then committed past, as
     * Spring Kafka's default would, which would skip the event without applying or dead-lettering it.
     */
    @Tag("extended") // CI and -Pextended; A10 of InboxRecordInterceptorKitTest
    @Test
    void aPoisonRecord_underTheDefaultErrorHandler_isRetriedAtTheBackoff_andNeverCommittedPast() throws Exception {
        SpringInbox inbox = Database.memoryInbox();
        InboxRecordInterceptor<String, String> interceptor =
                new InboxRecordInterceptor<>(inbox, RecordKeys.cloudEvents());
        List<String> applied = new CopyOnWriteArrayList<>();
        List<Long> attempts = new CopyOnWriteArrayList<>();
        AtomicBoolean poisoned = new AtomicBoolean(true);
        try (SpringKafka kafka = new SpringKafka()) {
            KafkaMessageListenerContainer<String, String> container = kafka.container(r -> {
                if (r.value().equals("p1")) {
                    attempts.add(System.nanoTime());
                    if (poisoned.get()) {
                        throw new IllegalStateException("poison: p1 fails on every attempt");
                    }
                }
                applied.add(r.value());
            });
            InboxKafka.configure(container, interceptor, BUSY_BACKOFF);
            kafka.send("p1", "n1");
            container.start();
            try {
                await("more attempts than Spring Kafka's default ten", 60, () -> attempts.size() >= 15);
                long span = attempts.get(attempts.size() - 1) - attempts.get(0);
                assertThat(attempts.size() - 1)
                        .as(
                                "retries over %d ms, one busy back-off (%s) apart at the most",
                                span / 1_000_000, BUSY_BACKOFF)
                        .isLessThanOrEqualTo((int) (span / BUSY_BACKOFF.toNanos()) + 1);
                assertThat(kafka.committed())
                        .as("nothing committed past the poison record")
                        .isLessThan(1);
                assertThat(applied)
                        .as("the record behind it waits on its partition")
                        .isEmpty();
                poisoned.set(false);
                await("both committed once the poison record's work succeeds", 60, () -> kafka.committed() == 2);
            } finally {
                container.stop();
            }
        }
        assertThat(applied).containsExactly("p1", "n1");
    }
}
