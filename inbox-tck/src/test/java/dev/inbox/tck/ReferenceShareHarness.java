package dev.inbox.tck;

import dev.inbox.Claim;
import dev.inbox.InboxStoreException;
import dev.inbox.tck.adapter.AdapterKit;
import dev.inbox.tck.adapter.Outage;
import dev.inbox.testing.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.jspecify.annotations.Nullable;

/**
 * The adapter kit's share-group reference adapter: the simplest correct lease-mode consumer of a
 * Kafka share group (KIP-932) on the real broker, and the ways share groups let it go wrong ({@link
 * Breakage}) for the kit's self-tests. A topic of two partitions; one share group whose acquisition
 * lock is the kit's lease, with lock renewal ({@code share.renew.acknowledge.enable}) on and the
 * brokers' delivery limit of 5.
 *
 * <p>Each member polls on its own thread and works one record at a time on a second one. Before
 * each poll, every record of the last poll is acknowledged: ACCEPT (or REJECT for a record without a
 * usable key, after reporting it dead-lettered) once its outcome is recorded, RENEW while it waits
 * or is worked — a renewed record comes back from a later poll, and is acknowledged then. A BUSY
 * claim, a store that cannot answer and work that throws are tried again in place after the
 * back-off, the record held meanwhile: never RELEASEd, since each delivery counts toward the
 * group's limit and a record delivered that often is archived unapplied.
 */
final class ReferenceShareHarness extends KafkaReference {

    /** One thing the reference adapter gets wrong, or nothing. */
    enum Breakage {
        NONE,
        /**
         * ACCEPTs a record once its work returned, and completes its claim once the acceptance is
         * committed: a consumer that dies between the two has accepted an event it never recorded.
         */
        ACCEPT_BEFORE_COMPLETE,
        /**
         * Renews no acquisition lock: it polls again only once every record of the last poll is
         * settled, so work longer than the lock lets the record go to another member meanwhile.
         */
        NO_LOCK_RENEWAL,
        /** RELEASEs a BUSY record for redelivery: each delivery counts, and the fifth archives it. */
        RELEASE_ON_BUSY
    }

    /** The group's delivery limit: fewer deliveries than the kit's 20 retries of a BUSY event. */
    static final int DELIVERY_LIMIT = 5;

    /** How often the reference tries a completion before it accepts the record all the same. */
    private static final int COMPLETION_ATTEMPTS = 3;

    private final Breakage breakage;

    ReferenceShareHarness(AdapterKit kit, Breakage breakage) throws Exception {
        super(kit);
        this.breakage = breakage;
    }

    /** A share group whose lock is the kit's lease, renewals on, the brokers' delivery limit. */
    @Override
    void configureGroup(Admin admin) throws Exception {
        List<AlterConfigOp> settings =
                KafkaBroker.shareGroupSettings(kit.lease().toMillis(), DELIVERY_LIMIT, true).entrySet().stream()
                        .map(setting -> new AlterConfigOp(
                                new ConfigEntry(setting.getKey(), setting.getValue()), AlterConfigOp.OpType.SET))
                        .toList();
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), settings))
                .all()
                .get(60, TimeUnit.SECONDS);
    }

    @Override
    public Running start() {
        Member member = new Member();
        member.thread.start();
        return member;
    }

    /** Once a member crashed, its calls into its consumer fail: a killed process acknowledges nothing more. */
    private static final Map<String, Outage.During> DEAD = Map.of(
            "acknowledge", ReferenceShareHarness::killed,
            "commitSync", ReferenceShareHarness::killed,
            "poll", ReferenceShareHarness::killed);

    private static Object killed(@Nullable Object[] args) {
        throw new WakeupException();
    }

    /** A record in a member's hand, from its first poll until its outcome is acknowledged. */
    private static final class InHand {
        /** The record as the last poll that returned it gave it (only that one can be acknowledged). */
        volatile ConsumerRecord<String, String> record;
        /** How the record is to be acknowledged once its attempt ended; null while it waits or is worked. */
        volatile @Nullable AcknowledgeType outcome;
        /** Counted down once the outcome is committed. */
        final CountDownLatch acknowledged = new CountDownLatch(1);

        boolean begun;

        InHand(ConsumerRecord<String, String> record) {
            this.record = record;
        }
    }

    /** One member of the group: a poll thread and a work thread, on a share consumer of its own. */
    private final class Member implements Running {
        final Thread thread = new Thread(this::run, "adapter-kit-share-reference");
        final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "adapter-kit-share-reference-work");
            t.setDaemon(true);
            return t;
        });
        final Outage dead = new Outage();
        volatile boolean stopping;
        /** How long a stop waits for the record in hand to be acknowledged (its lock may have lapsed). */
        volatile long stopDeadline;

        volatile boolean crashed;
        volatile @Nullable KafkaShareConsumer<String, String> current;
        /** By partition and offset, in the order first polled. Poll thread only. */
        final Map<String, InHand> inHand = new LinkedHashMap<>();

        List<ConsumerRecord<String, String>> last = List.of();

        @Nullable
        InHand working;

        @Nullable
        Future<?> work;

        Member() {
            thread.setDaemon(true);
        }

        private void run() {
            KafkaShareConsumer<String, String> real = new KafkaShareConsumer<>(KafkaBroker.shareConsumerConfig(group));
            current = real;
            ShareConsumer<String, String> alive = dead.wrap(ShareConsumer.class, real, DEAD);
            ShareConsumer<String, String> consumer = outage.kafkaConsumer(ShareConsumer.class, alive);
            try {
                consumer.subscribe(List.of(topic));
                while (!crashed && !(stopping && workInHandAcknowledged())) {
                    startWork();
                    if (breakage == Breakage.NO_LOCK_RENEWAL && !stopping && !lastSettled()) {
                        pause(Duration.ofMillis(10));
                        continue;
                    }
                    acknowledgeLast(consumer, AcknowledgeType.RENEW);
                    take(consumer.poll(Duration.ofMillis(100)));
                }
                if (!crashed) {
                    acknowledgeLast(consumer, AcknowledgeType.RELEASE); // not begun: the next member's
                }
            } catch (WakeupException killed) {
                // crashed
            } finally {
                worker.shutdownNow();
                real.close(crashed ? Duration.ZERO : Duration.ofSeconds(10));
            }
        }

        private void take(Iterable<ConsumerRecord<String, String>> records) {
            List<ConsumerRecord<String, String>> polled = new ArrayList<>();
            for (ConsumerRecord<String, String> record : records) {
                polled.add(record);
                inHand.computeIfAbsent(record.partition() + "@" + record.offset(), k -> new InHand(record)).record =
                        record;
            }
            last = polled;
        }

        /** Each record of the last poll: its outcome once settled, {@code unsettled} while not. */
        private void acknowledgeLast(ShareConsumer<String, String> consumer, AcknowledgeType unsettled) {
            List<InHand> settled = new ArrayList<>();
            for (ConsumerRecord<String, String> record : last) {
                InHand held = inHand.get(record.partition() + "@" + record.offset());
                AcknowledgeType outcome = held.outcome;
                consumer.acknowledge(record, outcome == null ? unsettled : outcome);
                if (outcome != null) {
                    inHand.remove(record.partition() + "@" + record.offset());
                    settled.add(held);
                }
            }
            if (last.isEmpty()) {
                return;
            }
            last = List.of();
            try {
                consumer.commitSync();
                settled.forEach(held -> held.acknowledged.countDown());
            } catch (WakeupException killed) {
                throw killed;
            } catch (KafkaException unreachable) {
                // what was not committed comes back: a record's lock lapses, and a poll returns it again
            }
        }

        private boolean lastSettled() {
            return last.stream()
                    .allMatch(record -> inHand.get(record.partition() + "@" + record.offset()).outcome != null);
        }

        private boolean workInHandAcknowledged() {
            InHand held = working;
            return held == null || held.acknowledged.getCount() == 0 || System.nanoTime() - stopDeadline > 0;
        }

        /** Begins the next record not yet begun, when no work runs (and the member is not stopping). */
        private void startWork() {
            if (stopping || (work != null && !work.isDone())) {
                return;
            }
            for (InHand held : inHand.values()) {
                if (!held.begun) {
                    held.begun = true;
                    working = held;
                    work = worker.submit(() -> attempt(held));
                    return;
                }
            }
        }

        /** Settles one record: tried again in place until its outcome is known (or the member crashed). */
        private void attempt(InHand held) {
            while (!crashed && !Thread.currentThread().isInterrupted()) {
                ConsumerRecord<String, String> record = held.record;
                String id = idOf(record);
                if (id == null) {
                    kit.deadLettered(record.value());
                    held.outcome = AcknowledgeType.REJECT;
                    return;
                }
                Claim claim;
                try {
                    claim = inbox.claims().claim(id);
                } catch (InboxStoreException storeDown) {
                    pause(kit.backoff());
                    continue;
                }
                switch (claim.status()) {
                    case DUPLICATE -> {
                        held.outcome = AcknowledgeType.ACCEPT;
                        return;
                    }
                    case BUSY -> {
                        if (breakage == Breakage.RELEASE_ON_BUSY) {
                            held.outcome = AcknowledgeType.RELEASE;
                            return;
                        }
                        pause(kit.backoff());
                    }
                    default -> {
                        if (work(claim, record)) {
                            complete(claim, held);
                            held.outcome = AcknowledgeType.ACCEPT;
                            return;
                        }
                        pause(kit.backoff());
                    }
                }
            }
        }

        /** Runs the work under a renewed claim; false (the claim released) when it threw. */
        private boolean work(Claim claim, ConsumerRecord<String, String> record) {
            claim.keepRenewed();
            try {
                kit.apply(record.value(), null);
                return true;
            } catch (Exception | Error failed) {
                try {
                    claim.release();
                } catch (InboxStoreException storeDown) {
                    // the lease ends it
                }
                return false;
            }
        }

        /** Records the work as done, tried {@value #COMPLETION_ATTEMPTS} times; the record is accepted either way. */
        private void complete(Claim claim, InHand held) {
            if (breakage == Breakage.ACCEPT_BEFORE_COMPLETE) {
                held.outcome = AcknowledgeType.ACCEPT;
                try {
                    held.acknowledged.await(kit.lease().toMillis() * 3, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            for (int attempt = 1; attempt <= COMPLETION_ATTEMPTS; attempt++) {
                try {
                    claim.complete();
                    return;
                } catch (InboxStoreException notRecorded) {
                    // tried again; past the attempts, the work is done and the lease bounds the window
                }
            }
        }

        @Override
        public void stop() throws Exception {
            stopDeadline = System.nanoTime() + kit.lease().multipliedBy(3).toNanos();
            stopping = true;
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }

        /**
         * Every later call into the consumer fails, and the poll thread is woken and closes it at
         * once: nothing more is acknowledged. From the work thread (the handler, the completion),
         * returns without waiting.
         */
        @Override
        public void crash() throws InterruptedException {
            crashed = true;
            dead.begin();
            KafkaShareConsumer<String, String> consumer = current;
            if (consumer != null) {
                consumer.wakeup();
            }
            if (!Thread.currentThread().getName().equals("adapter-kit-share-reference-work")) {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
        }

        @Override
        public void cutConnection() {
            outage.begin();
        }

        @Override
        public void restoreConnection() {
            outage.end();
        }
    }
}
